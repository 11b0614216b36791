// Package kubeovn reproduces kubeovn-argocd: Kube-OVN's vpc-nat-gateways CRD
// carries x-kubernetes-patch-merge-key/-strategy in its affinity schema; the
// API server drops them, so ArgoCD's desired CRD never equals the live one.
// Upstream: kubeovn/kube-ovn#4817 "[BUG] Extra fields in CRDs trigger OutOfSync on ArgoCD" (and #5988).
//
// Steps: push the release's vpc-nat-gateways.kubeovn.io CRD to the in-cluster
// git server; create an Application for it (with the variant's mitigation);
// sync and wait for Succeeded; count the keys in the desired and the live CRD;
// refresh, hard-refresh. Verdict: `bug` holds OutOfSync throughout; a
// mitigation becomes Synced and holds it across both refreshes. `minimal`
// runs the bug's steps on a small CRD carrying the same keys
// (fixtures/charts/patch-keys-crd), without Kube-OVN.
package kubeovn
