// Command pause is the pod sandbox process: it holds the pod's namespaces,
// reaps orphaned children and exits on SIGINT or SIGTERM. It stands in for
// registry.k8s.io/pause, which cannot be pulled offline.
package main
