package env

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
)

// ObserveWithin waits up to timeout for check and records the outcome as an
// observation either way: evidence for the report, never a verdict or an error.
func ObserveWithin(what string, timeout time.Duration, check assert.Check) features.Func {
	return assert.Step("observe "+what, func(ctx context.Context) error {
		start := time.Now()
		if err := assert.Eventually(ctx, what, timeout, check); err != nil {
			observe(ctx, "observed: %s: no: %v", what, err)
			return nil
		}
		_, seen, _ := check(ctx)
		observe(ctx, "observed: %s: yes, after %s: %s", what, time.Since(start).Round(time.Second), seen)
		return nil
	})
}

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
		if ok, seen, _ := check(ctx); ok != want {
			CellFrom(ctx).Step("%s: skipped (%v: %s)", what, ok, seen)
			return ctx
		}
		return step(ctx, t, cfg)
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
