# A Kyverno binary (cmd/kyverno or cmd/kyverno-init) as ko would ship it:
# static, the entrypoint, non-root; the chart passes only arguments.
FROM scratch
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY app /ko-app/app
USER 65532:65532
ENTRYPOINT ["/ko-app/app"]
