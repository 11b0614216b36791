# ghcr.io/akuity/kargo as upstream's final stage lays it out (binaries in
# /usr/local/bin, tini entrypoint, CMD kargo), FROM a local Debian rootfs with
# what upstream's base image holds (see build.sh); nothing is pulled.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY bin/ /usr/local/bin/
# the chart runs /sbin/tini; Debian installs /usr/bin/tini
RUN [ -e /sbin/tini ] || ln -s /usr/bin/tini /sbin/tini; \
    useradd -M -u 1000 -g 0 -d /tmp kargo
USER 1000:0
ENTRYPOINT ["/sbin/tini", "--"]
CMD ["/usr/local/bin/kargo"]
