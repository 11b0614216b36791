// Package helm installs and uninstalls charts through the Helm SDK, from a
// chart repository, an OCI registry or a local directory.
package helm
