// Package cluster owns kind clusters: create (or reuse one whose node image
// matches), load images, export logs, destroy, with the pinned kind CLI and
// the repository's kind-config.yaml. kind runs as a child process the run's
// context can end (see shell.Run).
package cluster
