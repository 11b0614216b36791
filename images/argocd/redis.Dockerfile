# Stand-in for the redis image that the tag's install.yaml names, built
# offline by build.sh FROM a local debootstrap rootfs holding Debian's
# redis-server. install.yaml passes only arguments (--save "" ...), so
# redis-server is the entrypoint. The pod runs as uid 999 with a read-only
# root filesystem; /data (the workdir, as in the official image) belongs to 999.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}

RUN mkdir -p /data && chown 999:999 /data
WORKDIR /data
EXPOSE 6379
ENTRYPOINT ["redis-server"]
