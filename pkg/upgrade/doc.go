// Package upgrade is make upgrade-check: whether upgrading ArgoCD from one
// release to another is safe for a user's Applications. The Applications
// (APPS, as kubectl exports them) and their sources are read before
// anything starts (Options.Resolve, Validate: a user error is one line,
// exit 2); each is then a cell of the usual report, of the scenario
// upgrade-check made from them at run time (Spec.Plan), on FROM with an
// in-place upgrade to TO.
//
// A cell (Spec.Feature) creates the Application, its sync policy as
// written, through the suite's git server on FROM, syncs it (or waits for
// ArgoCD's own sync), reads FROM's render from ArgoCD's API server, deletes
// it with cascade (the deletion's baseline), creates and syncs it again and
// reads its state; upgrades ArgoCD in place; waits for TO's controller to
// compare it by itself and reads the state; pushes a change and a removal
// to its source and waits for ArgoCD to act on each, asked nothing; reads
// TO's render (compared object by object and field by field: Compare) and
// the state; deletes it with cascade again. Grade turns what was read into SAFE, CHANGED, BROKEN (something
// that worked on FROM no longer does) or ERROR (the cell could not tell).
//
// It stands on pkg/appcell, the harness it shares with make conform (the
// source found, the cell's skeleton, the options and plan), and nothing of
// pkg/conform. Its route table is pkg/route's.
package upgrade
