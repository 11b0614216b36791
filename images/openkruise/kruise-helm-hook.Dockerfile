# openkruise/kruise-helm-hook as upstream's Dockerfile_helm_hook lays it out
# (/helm_hook, its ENTRYPOINT), on a scratch rootfs (see build.sh).
FROM scratch
ADD rootfs.tar /
ENTRYPOINT ["/helm_hook"]
