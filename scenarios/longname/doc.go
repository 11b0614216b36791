// Package longname reproduces longname-hooks-argocd: ArgoCD refuses to
// create a deletion hook (PreDelete, PostDelete) of an Application whose name
// is over 63 characters, as ApplicationSets generate them: the controller
// labels the hook app.kubernetes.io/instance=<the whole name>, the API server
// rejects a label value over 63 characters, and the Application stays
// Terminating on its pre- or post-delete finalizer.
// Upstream: argoproj/argo-cd#27527 "PreDelete/PostDelete hooks fail for
// Applications with names longer than 63 characters"; fixed by #27542
// (cherry-picks #27714, #27715), in v3.3.11, v3.4.3 and v3.5.0.
//
// The write-up ties the bug to label tracking (application.resourceTrackingMethod
// label or annotation+label, which installs upgraded from 2.x carry). The
// release trees say otherwise (controller/hook.go up to v3.4.2 sets the label
// on deletion hooks whatever the tracking method): the `annotation-tracking`
// variant measures which is true. The fix covers annotation and
// annotation+label; label-only keeps the whole name as the label value
// (util/argo/resource_tracking.go:171-179 at v3.4.3 and v3.6.1).
//
// Steps: the kruise chart (1.8.3, whose Helm pre-delete hook kruise-finalizer
// ArgoCD runs as a PreDelete hook) through an Application with a 66-character
// name, into kruise-system made beforehand with the label its webhooks need
// (the openkruise-webhook scenario's mitigation, so the install comes up);
// argocd-cm set to the variant's tracking method; sync and wait until the
// manager is Available; delete the Application as `argocd app delete` does
// (cascade, foreground); wait until the deletion settles: the Application
// gone, or a DeletionError naming the 63-character limit.
// Verdict: `bug` (annotation+label) and `minimal` hold the Application
// Terminating with that DeletionError (REPRODUCED) or see it go
// (NOT_REPRODUCED); `annotation-tracking` and `short-name` (63 characters)
// must see it go (MITIGATED). `minimal` does the same on a ConfigMap and a
// PostDelete hook Job of the suite's own (fixtures/charts/deletion-hook),
// without kruise. `argocd-upgrade` leaves the bug's deletion stuck on the
// last release before the fix, upgrades ArgoCD in place past it, and must
// see the Application go (MITIGATED: the upgrade releases it).
package longname
