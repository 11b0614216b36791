// Package metricsserver is the metrics-server a run's cluster has, as every
// managed Kubernetes has one (make upgrade-check's METRICS): which one, a
// version the catalog pins or none, and its manifests, rendered from its Go
// module zip.
//
// The manifests are upstream's release manifests, rendered as its release's
// components.yaml is (`kubectl kustomize manifests/overlays/release`,
// metrics-server's Makefile target release-manifests), with the one flag a
// kind cluster needs, --kubelet-insecure-tls (kind's kubelets serve
// certificates the cluster's CA did not sign).
//
// Upstream's own test overlay (manifests/overlays/test, its component
// manifests/components/test) adds --kubelet-insecure-tls too, but with --v=4,
// imagePullPolicy Never, --node-selector=metrics-server-skip!=true and the
// staging image gcr.io/k8s-staging-metrics-server/metrics-server:master: a
// test build, not the release. The suite takes the release overlay and adds
// the flag alone.
package metricsserver
