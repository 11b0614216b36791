package argocd

import (
	"context"
	"fmt"
	"strings"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gitops-conformance/suite/pkg/assert"
)

// check builds an assert.Check over an Application.
func (a *Apps) check(name string, cond func(*v1alpha1.Application) bool) assert.Check {
	return a.look(name, func(app *v1alpha1.Application) (bool, string) { return cond(app), Describe(app) })
}

// look builds an assert.Check over an Application that says what it saw.
func (a *Apps) look(name string, cond func(*v1alpha1.Application) (bool, string)) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		app, err := a.api().Get(ctx, name, metaGet)
		if errors.IsNotFound(err) {
			return false, "application not found", nil
		}
		if err != nil {
			return false, "", assert.Unknown(fmt.Errorf("get application %s: %w", name, err))
		}
		ok, seen := cond(app)
		return ok, seen, nil
	}
}

// SyncStatusIs holds when the Application's sync status is s.
func (a *Apps) SyncStatusIs(name string, s v1alpha1.SyncStatusCode) assert.Check {
	return a.check(name, func(app *v1alpha1.Application) bool { return app.Status.Sync.Status == s })
}

// HealthIs holds when the Application's health is h.
func (a *Apps) HealthIs(name string, h string) assert.Check {
	return a.check(name, func(app *v1alpha1.Application) bool { return string(app.Status.Health.Status) == h })
}

// OperationPhaseIs holds when the last operation is in phase p: Running while
// it runs, a finished phase once no new request is pending.
func (a *Apps) OperationPhaseIs(name string, p synccommon.OperationPhase) assert.Check {
	return a.check(name, func(app *v1alpha1.Application) bool {
		// a finished phase counts once the request is consumed (else it may be the
		// previous operation's); a running operation keeps its request until it ends
		settled := app.Operation == nil || p == synccommon.OperationRunning
		return settled && app.Status.OperationState != nil && app.Status.OperationState.Phase == p
	})
}

// OperationMessageContains holds when the operation's message contains s.
func (a *Apps) OperationMessageContains(name, s string) assert.Check {
	return a.check(name, func(app *v1alpha1.Application) bool {
		return app.Status.OperationState != nil && strings.Contains(app.Status.OperationState.Message, s)
	})
}

// Gone holds when the Application no longer exists.
func (a *Apps) Gone(name string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		app, err := a.api().Get(ctx, name, metaGet)
		if errors.IsNotFound(err) {
			return true, "gone", nil
		}
		if err != nil {
			return false, "", assert.Unknown(fmt.Errorf("get application %s: %w", name, err))
		}
		return false, fmt.Sprintf("still there (deletion %v, finalizers %v); %s", app.DeletionTimestamp != nil, app.Finalizers, Describe(app)), nil
	}
}

// Refreshed holds once the controller has taken a requested refresh.
func (a *Apps) Refreshed(name string) assert.Check {
	return a.check(name, func(app *v1alpha1.Application) bool {
		_, pending := app.Annotations[v1alpha1.AnnotationKeyRefresh]
		return !pending
	})
}

// ResourceIs holds when the Application's status lists its resource of
// kind and name with sync status s; s "" holds when it lists none such.
// prunable also asks that ArgoCD mark it to prune (no longer in the render).
func (a *Apps) ResourceIs(name, kind, resource string, s v1alpha1.SyncStatusCode, prunable bool) assert.Check {
	return a.look(name, func(app *v1alpha1.Application) (bool, string) {
		r, ok := Listed(app, kind, resource)
		if !ok {
			return s == "", fmt.Sprintf("lists no %s %s; %s", kind, resource, Describe(app))
		}
		listed := fmt.Sprintf("lists %s %s %s", kind, resource, r.Status)
		if r.RequiresPruning {
			listed += " (to prune)"
		}
		return r.Status == s && r.RequiresPruning == prunable, listed + "; " + Describe(app)
	})
}

// Listed is the Application's status entry of its resource of kind and
// name, if it lists one.
func Listed(app *v1alpha1.Application, kind, name string) (v1alpha1.ResourceStatus, bool) {
	for _, r := range app.Status.Resources {
		if r.Kind == kind && r.Name == name {
			return r, true
		}
	}
	return v1alpha1.ResourceStatus{}, false
}

// ReconciledSince holds once the controller compared the Application (its
// reconciledAt) at since() or later: a refresh of its own, none asked for.
func (a *Apps) ReconciledSince(name string, since func() time.Time) assert.Check {
	return a.check(name, func(app *v1alpha1.Application) bool {
		at := app.Status.ReconciledAt
		return at != nil && !at.Time.Before(since().Truncate(time.Second))
	})
}

// ComparedAt holds once the controller compared the Application at commit()
// (its status.sync.revision): it acted on that commit, not on a status it
// still shows from an earlier one. An empty commit never holds.
func (a *Apps) ComparedAt(name string, commit func() string) assert.Check {
	return a.look(name, func(app *v1alpha1.Application) (bool, string) {
		c, at := commit(), app.Status.Sync.Revision
		return c != "" && at == c, "compared at " + Short(at) + "; " + Describe(app)
	})
}

// OperationAt holds when the last operation is in phase p at commit():
// the revision its result names, or, while it runs, the one it asked for.
// auto says it must be ArgoCD's own (an auto-sync), not one asked for.
func (a *Apps) OperationAt(name string, p synccommon.OperationPhase, commit func() string, auto bool) assert.Check {
	return a.look(name, func(app *v1alpha1.Application) (bool, string) {
		op := app.Status.OperationState
		if op == nil {
			return false, "no operation; " + Describe(app)
		}
		at := OperationRevision(op)
		by := "asked for"
		if op.Operation.InitiatedBy.Automated {
			by = "auto-sync"
		}
		c := commit()
		ok := c != "" && at == c && op.Phase == p && (p == synccommon.OperationRunning || app.Operation == nil) && (!auto || by == "auto-sync")
		return ok, fmt.Sprintf("operation (%s) at %s; compared at %s; %s", by, Short(at), Short(app.Status.Sync.Revision), Describe(app))
	})
}

// OperationRevision is the commit an operation synced: its result's, or,
// while it runs, the one it asked for.
func OperationRevision(op *v1alpha1.OperationState) string {
	if op.SyncResult != nil && op.SyncResult.Revision != "" {
		return op.SyncResult.Revision
	}
	if op.Operation.Sync != nil {
		return op.Operation.Sync.Revision
	}
	return ""
}

// Short is a commit as git abbreviates it (12 hex digits), "<none>" for none.
func Short(commit string) string {
	return orNone(commit[:min(12, len(commit))])
}

var metaGet = metav1.GetOptions{}
