// Package argocd installs, upgrades and removes ArgoCD releases in a cluster
// and drives Applications through the argo-cd/v3 typed client.
package argocd
