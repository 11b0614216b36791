// Package releases finds what a run can test now (make releases): the newest
// patch of each supported ArgoCD minor line, the seed pins the matrix was
// measured on, each component's newest release, which of them this mode can
// build or pull (and why not), and the nightly's shards made from them (Plan).
//
// It reads them at run time from where they are published: the module
// proxy's version lists and exact versions, and online also the modules' own
// repositories, where the proxy lags.
package releases
