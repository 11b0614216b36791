// Package upgrade is make upgrade-check: whether upgrading ArgoCD from one
// release to another is safe for a user's Applications. The Applications
// (APPS, as kubectl exports them) and their sources are read before
// anything starts (Options.Resolve, Validate: a user error is one line,
// exit 2); each is then a cell of the usual report, of the scenario
// upgrade-check made from them at run time (Spec.Plan), on FROM with an
// in-place upgrade to TO.
//
// A cell (Spec.Feature) creates the Application through the suite's git
// server on FROM, syncs it, reads FROM's render from ArgoCD's API server,
// deletes it with cascade (the deletion's baseline), creates and syncs it
// again and reads its state; upgrades ArgoCD in place; hard-refreshes and
// reads the state and TO's render (compared object by object and field by
// field: Compare); syncs and reads the state; deletes it with cascade
// again. Grade turns what was read into SAFE, CHANGED, BROKEN (something
// that worked on FROM no longer does) or ERROR (the cell could not tell).
//
// Its route table (RouteOf) reads, from the expectations of
// suites/matrix.yaml and nothing typed in, every behaviour change the suite
// measured on the path from FROM to TO, and what it measured there without
// a change.
package upgrade
