package env

import (
	"context"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/step"
)

// If runs steps, in order, only when check holds at that moment; otherwise
// the cell records that it skipped them and what it saw. It is named what.
func If(check assert.Check, what string, steps ...step.Step) step.Step {
	return when(check, true, what, steps)
}

// Unless runs steps, in order, only when check does not hold at that moment.
func Unless(check assert.Check, what string, steps ...step.Step) step.Step {
	return when(check, false, what, steps)
}

func when(check assert.Check, want bool, what string, steps []step.Step) step.Step {
	run := InOrder(what, steps...)
	return step.Act(what, func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		if repro.Planning(ctx) { // inside a branch not taken: only written down
			branch, done := repro.InBranch(ctx, what, assert.ScriptOf(ctx, check), want, false)
			defer done()
			run.Func()(branch, t, cfg)
			return ctx
		}
		ok, seen, err := check(ctx)
		if err != nil {
			// neither run nor skip on a guess: the cell ends ERROR with the error
			return assert.Step(what, func(context.Context) error { return err })(ctx, t, cfg)
		}
		branch, done := repro.InBranch(ctx, what, assert.ScriptOf(ctx, check), want, ok == want)
		defer done()
		if ok != want {
			lifecycle.CellFrom(ctx).Step("%s: skipped (%v: %s)", what, ok, seen)
			// written down for the reproduction, not carried out
			run.Func()(branch, t, cfg)
			return ctx
		}
		run.Func()(branch, t, cfg)
		return ctx
	})
}

// InOrder runs steps one after the other as one step named what: it acts
// when one of them does.
func InOrder(what string, steps ...step.Step) step.Step {
	kind := step.Looks
	for _, s := range steps {
		if s.Kind() == step.Acts {
			kind = step.Acts
		}
	}
	run := func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		for _, s := range steps {
			ctx = s.Func()(ctx, t, cfg)
		}
		return ctx
	}
	if kind == step.Acts {
		return step.Act(what, run)
	}
	return step.Look(what, run)
}

// Fail is a step that ends the cell ERROR with err at once: a cell whose
// steps cannot be made (an input the catalog lacks) says why where it runs.
func Fail(what string, err error) step.Step {
	return look(what, func(context.Context) error { return err })
}
