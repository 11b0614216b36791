// Package fleet is make upgrade-check on a team's fleet: every Application
// and ApplicationSet of APPS (or of the repositories REPO and REPOS serve
// with their history) on one ArgoCD, upgraded in place once (Feature). It
// reads each Application on FROM and on TO once the fleet settled, its
// render and state; asks a sync of the lifecycle tier's on TO (LIFECYCLE)
// and reads their cascading deletion; names the Applications that render
// one object both or whose webhook refused another's. What it read of one
// Application is its record, graded by verdict.Grade as a cell's is; the
// fleet's one cell is made a cell per Application in the report (Plan's
// Expand, from FleetFile).
package fleet
