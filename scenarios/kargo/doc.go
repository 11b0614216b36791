// Package kargo reproduces kargo-argocd: a Kargo Project adopts a namespace
// made beforehand (label kargo.akuity.io/project: "true") and deleting the
// Project deletes the namespace with everything in it. The annotation
// kargo.akuity.io/keep-namespace: "true" (akuity/kargo#4229, from v1.6.0) on
// the Project or the Namespace is meant to keep it; akuity/kargo#4627 reports
// it failing when the Project is deleted in the foreground, which is how
// ArgoCD prunes and cascades by default.
// Upstream: https://github.com/akuity/kargo/issues/4202 (the request), #4229 (the annotation).
//
// Steps: install Kargo (offline: the image built from the Kargo source tree
// at the cell's tag, which KARGO_SOURCES names, and the chart from the same
// tree through the Helm SDK, with the webhook server's certificate the suite
// makes itself and no cert-manager; online: cert-manager and the upstream
// OCI chart); admin credentials generated per run, never recorded. Start a
// timeline of the namespace, its Secret and ConfigMap and the Project (every
// change, with finalizers and ownerReferences) and keep the management
// controller's log. Create the team namespace with a Secret and a ConfigMap,
// then the Project: by kubectl, or (argocd-* variants) in an Application's Git
// repository, synced by ArgoCD. Wait until Kargo adopted the namespace (its
// finalizer). Delete the Project the variant's way: kubectl delete (background,
// kubectl's default, or --cascade=foreground), removed from Git and pruned by
// a sync, or gone with the Application deleted with cascade (foreground). The
// -kargo-late and -gc-late variants stage akuity/kargo#4627's race one way
// each: Kargo's management controller, or the garbage collector
// (kube-controller-manager), is stopped before a foreground deletion and
// started again once the other has finished with the Project. The
// propagation used is read from the Project itself (the API server's
// foregroundDeletion finalizer in the timeline). Wait until the deletion
// settles (the namespace gone, or the Project gone and the namespace Active
// with its contents). Verdict: `bug` sees the namespace deleted;
// keep-namespace variants see the Project gone and the namespace Active with
// its Secret and ConfigMap, held.
//
// What the releases do is the cluster's to say; the catalog's comments on
// Kargo's history are what was read, not measured.
package kargo
