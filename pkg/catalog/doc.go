// Package catalog is the one place that names versions, images and Go module
// paths (catalog.yaml), with Release, an ArgoCD tag parsed once with its
// module and whether it builds from a source tree, and Support, the minor
// lines upstream supports. Everything that builds, installs or reports a
// version reads it here.
package catalog
