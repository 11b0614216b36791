package env

import (
	"context"
	"time"

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
