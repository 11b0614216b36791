package step

import (
	"fmt"

	"sigs.k8s.io/e2e-framework/pkg/features"
)

// Kind says what a step does to the cluster.
type Kind int

const (
	// Acts changes the cluster or what the cell does at its end, as a user,
	// an operator or ArgoCD would: apply, sync, delete, scale, a cleanup
	// registered.
	Acts Kind = iota + 1
	// Looks only reads: a wait, a hold, a verdict, an observation, evidence.
	Looks
)

func (k Kind) String() string {
	switch k {
	case Acts:
		return "acts"
	case Looks:
		return "looks"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Step is one named step of a scenario.
type Step struct {
	name string
	kind Kind
	fn   features.Func
}

// Act is a step that acts, named name.
func Act(name string, fn features.Func) Step { return Step{name: name, kind: Acts, fn: fn} }

// Look is a step that only looks, named name.
func Look(name string, fn features.Func) Step { return Step{name: name, kind: Looks, fn: fn} }

// Name is the step's name: its subtest's, its line in the cell's log.
func (s Step) Name() string { return s.name }

// Kind says whether the step acts or looks.
func (s Step) Kind() Kind { return s.kind }

// Func is the step as e2e-framework runs it.
func (s Step) Func() features.Func { return s.fn }

// As is the same step under another name: for a step a scenario takes twice
// (a second sync), whose own name would repeat.
func (s Step) As(name string) Step {
	s.name = name
	return s
}
