package env

import (
	"context"

	"github.com/gitops-conformance/suite/pkg/repro"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/step"
)

// act is a step that acts: what is its name and its line in the cell's log;
// an error of action marks the cell ERROR and stops it.
func act(what string, action func(ctx context.Context) error) step.Step {
	return step.Act(what, assert.Step(what, action))
}

// look is a step that only reads (evidence, an observation, an input).
func look(what string, action func(ctx context.Context) error) step.Step {
	return step.Look(what, assert.Step(what, action))
}

// actInRun is a step that acts in a run only (InRun): registering a cleanup,
// loading images, whatever repro.sh has no line for.
func actInRun(what string, action func(ctx context.Context) error) step.Step {
	return act(what, InRun(action))
}

// lookInRun is a step that reads in a run only (InRun): evidence, a log.
func lookInRun(what string, action func(ctx context.Context) error) step.Step {
	return look(what, InRun(action))
}

// InRun is action carried out in a run only: while the cell's reproduction
// is planned (repro.Planning: repro.sh being written, or a branch the cell
// did not take written down) it does nothing and leaves no line. The one
// place a step asks whether it is planned; a step that writes itself down
// (repro.Record) asks through that instead.
func InRun(action func(ctx context.Context) error) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		if repro.Planning(ctx) {
			return nil
		}
		return action(ctx)
	}
}
