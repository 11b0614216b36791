// Package kube talks to one cluster two ways. Client reads through client-go
// (dynamic client, discovery, exec streams): every look a wait polls, in one
// process. Kubectl runs the pinned kubectl (built with the node image) for
// what a user would type and the evidence quotes: server-side apply of whole
// manifests, patches, deletes, rollouts. Application reads and waits use the
// typed ArgoCD client (pkg/argocd).
package kube
