package env

import (
	"context"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// ByMode runs offline or online, whichever the run's mode is: for a
// component installed from different sources in the two modes (a tree the
// user provides offline, the upstream chart and images online).
func ByMode(offline, online step.Step) step.Step {
	return step.Act(offline.Name()+" (offline) or "+online.Name()+" (online)", func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		t.Helper()
		if lifecycle.From(ctx).Mode == images.Offline {
			return offline.Func()(ctx, t, cfg)
		}
		return online.Func()(ctx, t, cfg)
	})
}
