// Package guard reproduces openkruise-guard-argocd: ArgoCD deletes OpenKruise
// past its uninstall guard. The kruise chart 1.8.x carries a Helm pre-delete
// hook, Job kruise-finalizer (kruise's cmd/helm_hook), that fails while any
// CloneSet, Advanced StatefulSet or Advanced DaemonSet exists, so that
// uninstalling OpenKruise cannot take users' workloads with it; the chart
// renders its CRDs as templates, without helm.sh/resource-policy: keep.
// ArgoCD runs Helm pre-delete hooks as PreDelete hooks from 3.3 and keeps the
// Application (pre-delete-finalizer.argocd.argoproj.io) until they succeed.
// Upstream: argoproj/argo-cd#29100 (open): from 3.4.0 (#26724, cherry-pick
// #27257), a pass of executeHooks whose create of a hook answers "already
// exists" skips it, and when no hook was created and the hook Job is not in
// the controller's cache yet, the phase is declared done and the deletion
// goes ahead. v3.3.0-v3.3.14's executeHooks returns the AlreadyExists error
// instead; v3.3.15 (with v3.4.10 and v3.5.4) rewrote it and skips it too.
//
// The issue (and argo-cd#29100's discussion) expects the CRDs to go with the
// Application, and every CloneSet and its Pods with them. ArgoCD deletes no
// CRD at an Application's deletion (controller/appcontroller.go
// shouldBeDeleted: !kube.IsCRD), so the cell reads what is lost instead of
// assuming it: kruise's manager and webhooks go, the CRDs, the CloneSet and
// its Pods stay, and the CloneSet is no longer managed (scaled to 3, it does
// not count a third Pod).
//
// Steps: the kruise chart as published through the Application kruise (into
// kruise-system made beforehand with the label its webhooks need, so the
// install comes up); a CloneSet with 2 running Pods in a user namespace;
// ArgoCD's pre-delete finalizer on the Application; the Application deleted
// as `argocd app delete` does (cascade, foreground); watched for Window.
// Verdict: `bug` REPRODUCED when the deletion went past the failing guard
// (the pre-delete finalizer removed, or the Application gone), then what it
// took read from the cluster; NOT_REPRODUCED when the guard held it, with the
// Application's DeletionError. The controller's log is in the evidence
// ("already exists, skipping").
// Mitigations (non-cascading: `argocd app delete --cascade=false`;
// delete-false: the Application's syncOptions hold Delete=false) are
// MITIGATED when, once the Application is gone (its pre-delete finalizers
// removed by hand where the guard still holds, as a user whose guard cannot
// pass must), kruise's manager still runs the CloneSet. `minimal` does the
// bug on the suite's own chart (fixtures/charts/failing-guard): a ConfigMap
// guarded by a pre-delete Job that always fails, without kruise.
// `workloads-removed` is what the guard asks for: no CloneSet, so the guard
// passes; MITIGATED when the Application is gone after its guard Job
// completed, NOT_MITIGATED when ArgoCD held it on an error of its own or
// deleted before the guard ran to its end (make conform's deletion-hooks
// class on the real chart).
package guard
