// Package images provides the container images a run needs: in online mode
// the upstream ones, in offline mode images built from pinned sources by the
// recipes under images/ (shell scripts, one per image family), cached by a
// recipe key.
//
// A built image carries the label gitops-conformance.cache-key: a hash of
// its recipe files and the versions it was built from. An image whose key
// matches is reused; a changed recipe or version rebuilds.
package images
