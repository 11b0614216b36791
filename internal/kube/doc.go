// Package kube talks to one cluster two ways: through client-go (Client:
// reads, watches, exec) and through the pinned kubectl (Kubectl: what a user
// would type and the evidence quotes).
//
// Client uses the dynamic client, discovery and exec streams: every look a
// wait polls, in one process. Kubectl runs the kubectl built with the node
// image: server-side apply of whole manifests, patches, deletes, rollouts.
// Application reads and waits use the typed ArgoCD client (pkg/argocd).
package kube
