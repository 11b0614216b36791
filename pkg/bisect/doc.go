// Package bisect finds where a cell's outcome changes across ArgoCD
// releases: the releases of a range (asked of the module proxy), a search
// that runs as few of them as it can (or every one: a sweep) and says what
// it did not run, and an optional grouping of releases read from their
// sources before any is run.
package bisect
