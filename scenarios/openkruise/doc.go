// Package openkruise reproduces openkruise-webhook: the kruise Helm chart
// installed as the write-up's users did (`helm install kruise kruise/kruise
// --namespace=kruise-system --version=1.5.2`, installation.createNamespace=false,
// manager.replicas=1) into a kruise-system made beforehand without
// control-plane=openkruise. The chart's pod webhook mpod.kb.io (failurePolicy
// Fail) then selects the manager's own namespace, and its only backend is that
// manager: the Deployment sits in ReplicaFailure.
// Upstream: openkruise/kruise#1521 "[BUG] Can't install due to webhook race condition".
// Chart: https://github.com/openkruise/charts/tree/master/versions/kruise
//
// Steps: resolve the real chart (offline from OPENKRUISE_CHARTS, else the cell
// is SKIPPED saying what to provide; online the chart repository); record
// mpod.kb.io's namespaceSelector as the chart renders it and whether it lets
// kruise-system through; create kruise-system (labelled in `namespace-label`);
// build the manager image from the module (offline); install the chart with
// the write-up's values through the Helm SDK, without --wait, at natural
// timing (Helm creates the Deployment, then the webhook configurations). In
// `argocd-managed-namespace` an ArgoCD Application installs the same chart,
// pushed to the in-cluster git server, into the existing namespace
// (CreateNamespace=false). Wait until the manager is Available or in
// ReplicaFailure and record which (whether the first manager Pod met the
// webhook is a race at natural timing); if it is Available, replace it while
// none runs (scale to 0, no serving webhook endpoint, scale to 1), as a restart
// with one replica does. Verdict: `bug` holds ReplicaFailure/FailedCreate, not
// Available, an event naming mpod.kb.io and no ready webhook endpoints, and
// records which namespaces can still create Pods; `namespace-label` is
// Available with a CA bundle (after the same restart); `label-after-stuck`
// labels the stuck install's namespace and waits for it to recover on its own;
// `argocd-managed-namespace` requires the same stuck state, records it as
// ArgoCD shows it (health, sync operation; evidence in at-stuck/), then adds
// managedNamespaceMetadata (with CreateNamespace=true) to the Application,
// syncs, and waits for the manager Available and the Application Healthy.
package openkruise
