// Package conversion reproduces conversion-outage: one CRD whose conversion
// webhook has no backend blinds ArgoCD to every Application on the cluster.
// A CRD with two served versions and `strategy: Webhook`, its webhook's
// Service without endpoints (the operator's Pod gone), and one object stored
// at the version ArgoCD does not list: ArgoCD's cluster cache lists every
// kind at its preferred version, the API server must convert the object on
// the way out, the webhook does not answer, and the list fails. In
// gitops-engine (github.com/argoproj/argo-cd/gitops-engine/v3@v3.6.1
// pkg/cache/cluster.go:1227-1248) a list error that is not a permission error
// fails the whole cache's sync ("failed to sync cluster"), so every
// Application on that cluster, every team's, cannot be compared. A running
// controller that meets the CRD later only retries that kind's watch
// (startMissingWatches, cluster.go:698-716, then watchEvents' retry): the
// cache breaks when it is built again, at the controller's next start (an
// upgrade, a node drain, an evicted Pod) or a settings change.
// Upstream: argoproj/argo-cd#20828 (open) and #25305 ("brings argocd to a
// halt", v3.0.0); the fix PR #23425 was closed unmerged.
//
// Steps: two Applications of other teams (a ConfigMap each) synced and
// Healthy; the CRD (fixtures/charts/conversion-webhook: v1 stores, v2 is
// the preferred version) with its Service, then a Gadget created at v1; the
// Applications watched for a minute (what a running controller makes of
// it); every ArgoCD workload restarted (kubectl rollout restart).
// Verdict: `minimal` REPRODUCED when, within Window of the restart, every
// other team's Application carries a ComparisonError "failed to sync
// cluster"; NOT_REPRODUCED with what they showed. `exclusions` (the CRD's
// group added to argocd-cm's resource.exclusions, after the install's
// defaults, before the outage) MITIGATED when both Applications are Synced
// and Healthy without a ComparisonError after the restart. After the verdict
// the cell reads, without judging, whether a sync of an unrelated
// Application still applies its change from git. The controller's log is in
// the evidence.
package conversion
