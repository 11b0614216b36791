// Package kyverno reproduces kyverno-argocd: the chart's post-upgrade hook
// Job kyverno-clean-reports runs as an ArgoCD PostSync hook on every sync;
// on ArgoCD releases that put argocd.argoproj.io/hook-finalizer on hooks, a
// Job that finishes fast can keep the finalizer while being deleted, and the
// sync waits on the hook for ever.
// Upstream: kyverno/kyverno#13149 "[Bug] Kyverno-clean-reports Job Completes Too Quickly, ArgoCD Hook Finalizer Never Removed".
//
// Steps: build the release's images (kyverno, kyvernopre, the hook's kubectl)
// offline; create the kyverno namespace; push charts/kyverno of the release's
// module to the in-cluster git server; create a Helm Application with the
// variant's values; sync (the install: ArgoCD runs the post-upgrade hook here
// too) and wait until it completes or is held on the hook; unless held, sync
// again (the upgrade); record whether the hook Job carries the finalizer and
// wait until that sync completes or is held. Nothing here adds a finalizer:
// ArgoCD does, or not. Verdict: `bug` holds the stuck state (Job deleting with
// the hook finalizer, operation Running on the hook); then, while it is held,
// upgrades ArgoCD in place to each of the variant's argocdUpgrades newer than the cell's and
// records whether the held sync completes, and last removes the finalizer by
// hand; the evidence as it was at the verdict is kept in at-verdict/.
// `argocd-upgrade` (the cell's ArgoCD) and `hook-disabled`
// (policyReportsCleanup.enabled=false) must end Succeeded with no Job left.
// `minimal` runs the same syncs and verdict as `bug` on a ConfigMap and a
// hook Job with the annotations of Kyverno's (fixtures/charts/hook-finalizer),
// without Kyverno and without the in-place upgrades: seconds a cell, so it
// can run on every release.
//
// Measured: ArgoCD v2.14.3 (the one 2.14 release whose gitops-engine has the
// hook finalizer, argoproj/gitops-engine#646) holds the install's sync at
// natural timing; see suites/matrix.yaml for every release.
package kyverno
