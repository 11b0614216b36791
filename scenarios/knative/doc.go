// Package knative reproduces knative-argocd: Knative Serving's webhook makes
// the knative-serving Namespace an owner of its webhook configurations;
// ArgoCD leaves objects with ownerReferences alone when it deletes an
// Application, but deletes the webhook's Deployment and Service, so the
// configurations (failurePolicy: Fail) stay and reject what they match.
// Upstream: https://github.com/knative/serving/issues/15483; the flag
// WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP is knative/pkg#3103 (Knative 1.16);
// knative/pkg#3255 makes the reference controller: false (Knative 1.20).
//
// Steps: register, first (so it runs last), the deletion of whatever Knative
// leaves behind; apply the knative-serving Namespace outside the Application
// (as a platform team or CreateNamespace=true would: ArgoCD never deletes it);
// build and load the release's images; push config/core of knative.dev/serving
// at the cell's version, ko:// references resolved, with the variant's kustomize
// patch; create, sync, sync again (CRs in their CRDs' wave can fail the first);
// wait for the webhook to reconcile its configurations and
// record their ownerReferences; the guarded operation (a labelled ConfigMap in
// knative-serving) is admitted. `flag-later` then adds the flag to that
// install and syncs. Delete the Application with background cascade (foreground
// also waits out the activator's 600 s grace period: minutes per cell); the
// webhook Deployment and Service are gone; record whether the guarded
// operation passes while the webhook Pod terminates (~45 s; 1.20 on
// Kubernetes v1.33.13: yes; no release on v1.37.2: scenarios/knative/README.md) and
// wait for the Pod to be gone; record whether the Application goes
// (on 1.20 the left validation webhook's DELETE rule on Knative's own
// Certificate CR blocks it: DeletionError); an unguarded ConfigMap is admitted
// (negative control). Cleanup removes the left configurations before the
// Application's own deletion (they block it) and, registered first, once more
// with the CRDs at the very end. Verdict: `bug` holds the configurations present and the
// guarded operation rejected by the unreachable webhook; a mitigation sees the
// configurations gone and the guarded operation admitted. `minimal` does the
// same to a small fixture without Knative (see minimalFeature).
package knative
