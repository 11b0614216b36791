// Package changes is the catalog of ArgoCD's behaviour changes between
// releases that make upgrade-check names: each with the release it came
// in, where that release's upgrade guide says so, its impact, what keeps
// the old behaviour and what adapts to it, and how it shows in a reading
// (Change.Matches over a Difference). A difference no change of the
// catalog explains is unexplained: the rows a team must read. It is a
// leaf: the verdict (pkg/upgrade/verdict) asks it, nothing of it asks back.
package changes
