# openkruise/kruise-manager as upstream's Dockerfile lays it out (/manager,
# /kruise-daemon, ENTRYPOINT /manager), on a scratch rootfs (see build.sh).
FROM scratch
ADD rootfs.tar /
ENTRYPOINT ["/manager"]
