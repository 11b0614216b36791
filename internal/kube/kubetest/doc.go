// Package kubetest is a fake API server for unit tests of the looks and steps
// that read through kube.Client: it holds objects and can answer every call
// with an error instead (the API server's, or none at all).
package kubetest
