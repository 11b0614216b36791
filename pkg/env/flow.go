package env

import (
	"context"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// If runs step only when check holds at that moment; otherwise the cell
// records that it skipped it and what it saw.
func If(check assert.Check, what string, step features.Func) features.Func {
	return when(check, true, what, step)
}

// Unless runs step only when check does not hold at that moment.
func Unless(check assert.Check, what string, step features.Func) features.Func {
	return when(check, false, what, step)
}

func when(check assert.Check, want bool, what string, step features.Func) features.Func {
	return func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		if repro.Planning(ctx) { // inside a branch not taken: only written down
			branch, done := repro.InBranch(ctx, what, assert.ScriptOf(ctx, check), want, false)
			defer done()
			step(branch, t, cfg)
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
			step(branch, t, cfg)
			return ctx
		}
		step(branch, t, cfg)
		return ctx
	}
}

// InOrder runs steps one after the other as one step.
func InOrder(steps ...features.Func) features.Func {
	return func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		for _, step := range steps {
			ctx = step(ctx, t, cfg)
		}
		return ctx
	}
}
