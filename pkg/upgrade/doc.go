// Package upgrade is make upgrade-check: whether upgrading ArgoCD from one
// release to another is safe for a user's Applications. It wires four
// packages, one noun each:
//
//   - spec: what a run checks, read before anything starts (Options,
//     Resolve: a user error is one line, exit 2), and each setting
//     declared once (Settings);
//   - cell: one Application on its own cluster through the upgrade
//     (cell.Feature), what it read kept as cell.Observed;
//   - fleet: every Application and ApplicationSet of a team's repository on
//     one ArgoCD, upgraded once (fleet.Feature), a record per Application;
//   - verdict: the one reading of an Application and its one grade (SAFE,
//     CHANGED, BROKEN or ERROR), which the cell and the fleet both fill.
//
// Plan makes the run's scenario, upgrade-check, from the Applications at
// run time: a cell per Application (or the fleet's one cell, which the
// report makes a cell per Application), on FROM with an in-place upgrade
// to TO (pkg/upgrade/inplace). Validate is the whole check of a run's
// input, before anything is built.
//
// It stands on pkg/appcell, the harness it shares with make conform (the
// source found, the cell's skeleton, the options and plan), and nothing of
// pkg/conform. Its route table is pkg/route's.
package upgrade
