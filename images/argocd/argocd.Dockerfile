# Final Argo CD image, built offline by build.sh with the legacy builder
# (DOCKER_BUILDKIT=0) FROM a local debootstrap rootfs; nothing is pulled.
# Mirrors the "argocd-base" and final stages of the upstream Dockerfile of the
# tag (user 999 "argocd", /app/config layout, wrappers, tini entrypoint);
# the Go binaries come from the build context instead of builder stages.
# build.sh puts the ENV instructions of the tag's argocd-base stage where the
# line "# upstream ENV" is.
ARG BASE_IMAGE
FROM ${BASE_IMAGE}

LABEL org.opencontainers.image.source="https://github.com/argoproj/argo-cd"

USER root

ENV ARGOCD_USER_ID=999 \
    DEBIAN_FRONTEND=noninteractive

RUN groupadd -g $ARGOCD_USER_ID argocd && \
    useradd -r -u $ARGOCD_USER_ID -g argocd -d /home/argocd -s /bin/sh argocd && \
    mkdir -p /home/argocd && \
    chown argocd:0 /home/argocd && \
    chmod g=u /home/argocd

# argocd, helm, kustomize (and git-lfs where the tag pins a version of it),
# gpg-wrapper.sh, git-verify-wrapper.sh, entrypoint.sh
COPY bin/ /usr/local/bin/

# where the tag's Dockerfile initializes git-lfs system-wide (LFS filters in /etc/gitconfig)
ARG GIT_LFS_SYSTEM=0
RUN if [ "$GIT_LFS_SYSTEM" = 1 ]; then git lfs install --system; fi

# keep uid_entrypoint.sh for backward compatibility
RUN ln -s /usr/local/bin/entrypoint.sh /usr/local/bin/uid_entrypoint.sh

# support for mounting configuration from a configmap
WORKDIR /app/config/ssh
RUN mkdir -p /etc/ssh && touch ssh_known_hosts && \
    ln -s /app/config/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts

WORKDIR /app/config
RUN mkdir -p tls && \
    mkdir -p gpg/source && \
    mkdir -p gpg/keys && \
    chown argocd gpg/keys && \
    chmod 0700 gpg/keys

ENV USER=argocd

# upstream ENV

# One symlink per component name (from the tag's Dockerfile and install.yaml).
ARG ARGOCD_LINKS
RUN for n in $ARGOCD_LINKS; do ln -s /usr/local/bin/argocd /usr/local/bin/$n; done

USER $ARGOCD_USER_ID
WORKDIR /home/argocd
ENTRYPOINT ["/usr/bin/tini", "--"]
