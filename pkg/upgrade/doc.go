// Package upgrade is make upgrade-check: whether upgrading ArgoCD from one
// release to another is safe for a user's Applications. Its route table
// (RouteOf) reads, from the expectations of suites/matrix.yaml and nothing
// typed in, every behaviour change the suite measured on the path from FROM
// to TO, and what it measured there without a change.
package upgrade
