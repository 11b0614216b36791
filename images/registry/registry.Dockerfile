# The suite's local registry: the static registry binary of
# distribution/distribution (built by build.sh from the Go module proxy) and
# its configuration, FROM scratch: nothing to pull.
FROM scratch
ADD rootfs.tar /
VOLUME ["/var/lib/registry"]
EXPOSE 5000
ENTRYPOINT ["/registry", "serve", "/etc/distribution/config.yml"]
