// Package catalog is the one place that names versions, images and Go module
// paths. Everything that builds, installs or reports a version reads it here.
package catalog
