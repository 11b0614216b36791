// Package releases finds what a run can test now: the newest patch of each
// supported ArgoCD minor line, the seed pins the matrix was measured on, and
// each component's newest release, read at run time from where they are
// published (the module proxy's version lists and exact versions; online
// also the modules' own repositories, where the proxy lags), and which of
// them this mode can build or pull, with why not. The nightly's job matrix
// is made from it (Plan). Obtainable is the one answer to whether an ArgoCD
// release can be had in this mode, which every command gives in one
// sentence.
package releases
