package check

import (
	"context"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// SyncStatusIs holds when the Application's sync status is s.
func SyncStatusIs(name string, s v1alpha1.SyncStatusCode) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.SyncStatusIs(name, s)(ctx)
	}
}

// HealthIs holds when the Application's health is h.
func HealthIs(name, h string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.HealthIs(name, h)(ctx)
	}
}

// OperationPhaseIs holds when the Application's last operation is in phase p.
func OperationPhaseIs(name string, p synccommon.OperationPhase) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.OperationPhaseIs(name, p)(ctx)
	}
}

// OperationMessageContains holds when the operation's message contains s.
func OperationMessageContains(name, s string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.OperationMessageContains(name, s)(ctx)
	}
}

// AppGone holds when the Application no longer exists.
func AppGone(name string) assert.Check {
	return func(ctx context.Context) (bool, string, error) { return lifecycle.From(ctx).Apps.Gone(name)(ctx) }
}
