// Package gitserver runs a git daemon inside the cluster that serves fixture
// repositories to ArgoCD over git://. It runs in the ArgoCD image (which has
// git), so it needs no image of its own, offline or online.
package gitserver
