// Package step is what a scenario is made of: steps that name themselves
// and say whether they act on the cluster or only look at it, and the one
// builder that puts them into a cell's features in the right phase.
//
// A scenario lists its steps in order (Builder.Add). An action goes into an
// e2e-framework Setup, a look into an Assess under its own name; an action
// that follows a look starts the next stage (a feature of its own, run after
// the one before it), so no action ever runs as an Assess and no label is
// written twice. A name that repeats within a scenario is kept and reported
// (Scenario.Repeated): a test refuses it.
package step
