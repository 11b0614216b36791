// Package kruise is the kruise chart as the openkruise write-up installs it,
// shared by the scenarios that install it (openkruise-webhook directly,
// openkruise-guard-argocd and longname-hooks-argocd through ArgoCD). Under
// scenarios/, it is held to the same vocabulary as they are.
package kruise
