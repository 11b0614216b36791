# A Knative Serving component image, built offline by build.sh with the legacy
# builder (DOCKER_BUILDKIT=0); nothing is pulled. Mirrors what ko builds
# upstream: a static binary at /ko-app/<cmd> on a minimal base, run as the
# nonroot uid 65532 (the release manifests set runAsNonRoot), KO_DATA_PATH set.
FROM scratch
ARG CMD
COPY app /ko-app/app
COPY kodata /var/run/ko
ENV KO_DATA_PATH=/var/run/ko PATH=/ko-app
USER 65532:65532
ENTRYPOINT ["/ko-app/app"]
