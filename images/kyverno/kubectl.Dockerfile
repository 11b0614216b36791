# Stand-in for the chart's hook image (bitnami/kubectl): a Debian minbase
# rootfs (bash, awk, xargs, wc for the hook script) and a static kubectl.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY kubectl /usr/local/bin/kubectl
USER 1001
ENTRYPOINT ["kubectl"]
