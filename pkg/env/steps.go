package env

import (
	"context"

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
