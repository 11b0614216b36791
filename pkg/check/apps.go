package check

import (
	"context"
	"strconv"
	"strings"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// DeletionErrorMatches holds when the Application's DeletionError condition
// (what ArgoCD says when it cannot go on deleting it) matches re.
func DeletionErrorMatches(name, re string) assert.Check {
	is := "DeletionError matches " + strconv.Quote(re)
	if re == "." {
		is = "has a DeletionError"
	}
	return describe(lifecycle.Application(name), is,
		JSONPathMatches(lifecycle.Application(name), `{.status.conditions[?(@.type=="DeletionError")].message}`, re))
}

// SyncStatusIs holds when the Application's sync status is s.
func SyncStatusIs(name string, s v1alpha1.SyncStatusCode) assert.Check {
	return describe(lifecycle.Application(name), "sync status "+string(s), assert.Scripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.SyncStatusIs(name, s)(ctx)
	}, static(repro.ApplicationField(name, "{.status.sync.status}", string(s)))))
}

// HealthIs holds when the Application's health is h.
func HealthIs(name, h string) assert.Check {
	return describe(lifecycle.Application(name), "health "+h, assert.Scripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.HealthIs(name, h)(ctx)
	}, static(repro.ApplicationField(name, "{.status.health.status}", h))))
}

// OperationPhaseIs holds when the Application's last operation is in phase p.
func OperationPhaseIs(name string, p synccommon.OperationPhase) assert.Check {
	return describe(lifecycle.Application(name), "operation "+string(p), assert.Scripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.OperationPhaseIs(name, p)(ctx)
	}, static(repro.OperationPhaseIs(name, string(p)))))
}

// OperationEnded holds when the Application's last operation has ended:
// Succeeded, Failed or Error.
func OperationEnded(name string) assert.Check {
	return assert.Any(OperationPhaseIs(name, synccommon.OperationSucceeded),
		OperationPhaseIs(name, synccommon.OperationFailed), OperationPhaseIs(name, synccommon.OperationError))
}

// OperationMessageContains holds when the operation's message contains s.
func OperationMessageContains(name, s string) assert.Check {
	return describe(lifecycle.Application(name), "operation message contains "+strconv.Quote(s), assert.Scripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.OperationMessageContains(name, s)(ctx)
	}, static(repro.OperationMessageContains(name, s))))
}

// AppGone holds when the Application no longer exists.
func AppGone(name string) assert.Check {
	return describe(lifecycle.Application(name), "gone", assert.Scripted(func(ctx context.Context) (bool, string, error) { return lifecycle.From(ctx).Apps.Gone(name)(ctx) },
		static(repro.Missing("applications.argoproj.io", "argocd", name))))
}

// describe gives check its description: a look at obj, what is says about it.
func describe(obj lifecycle.Object, is string, check assert.Check) assert.Check {
	return assert.NamedOf(assert.Description{Of: refOf(obj), Is: is}, check)
}

// refOf names obj in a description: its kind as the API names it, in lower
// case, and ns/name ("application argocd/x", "cloneset ns/x"); a ref without
// a name is every object of its kind in its namespace.
func refOf(obj lifecycle.Object) string {
	kind := strings.ToLower(obj.KindOf())
	if obj.Name == "" {
		return kind + "s in " + obj.Namespace
	}
	return lifecycle.Ref(kind, obj.Namespace, obj.Name)
}

// static is a check's bash form that needs nothing from the run.
func static(c *repro.Check) func(context.Context) (*repro.Check, error) {
	return func(context.Context) (*repro.Check, error) { return c, nil }
}

// App reads an Application: for a look that records more of it than one
// field (its status, its operation's result).
func App(ctx context.Context, name string) (*v1alpha1.Application, error) {
	return lifecycle.From(ctx).Apps.Get(ctx, name)
}

// AppManifests is what the running ArgoCD's repo server renders for the
// Application, asked of its API server (argocd app manifests).
func AppManifests(ctx context.Context, name string) (*argocd.Render, error) {
	return argocd.API{Kube: lifecycle.From(ctx).Kube}.Manifests(ctx, name)
}

// AppResources are the Application's resources as ArgoCD's API server
// shows them: health, and target and live state.
func AppResources(ctx context.Context, name string) ([]argocd.Resource, error) {
	return argocd.API{Kube: lifecycle.From(ctx).Kube}.Resources(ctx, name)
}

// ResourceIs holds when the Application's status lists its resource of kind
// and name with sync status s ("" for not listed at all); prunable asks that
// ArgoCD also mark it to prune (its source no longer holds it).
func ResourceIs(name, kind, resource string, s v1alpha1.SyncStatusCode, prunable bool) assert.Check {
	is := "lists " + strings.ToLower(kind) + " " + resource + " " + string(s)
	switch {
	case s == "":
		is = "lists no " + strings.ToLower(kind) + " " + resource
	case prunable:
		is += ", to prune"
	}
	field := `{.status.resources[?(@.name=="` + resource + `")]`
	want := string(s) + "/"
	if prunable {
		want += "true"
	}
	return describe(lifecycle.Application(name), is, assert.Scripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.ResourceIs(name, kind, resource, s, prunable)(ctx)
	}, static(repro.ApplicationField(name, field+".status}/"+field+".requiresPruning}", want))))
}

// ReconciledSince holds once the controller compared the Application at
// since() or later, by itself (no refresh asked for).
func ReconciledSince(name string, since func() time.Time) assert.Check {
	return describe(lifecycle.Application(name), "compared by the controller since then", assert.Unscripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.ReconciledSince(name, since)(ctx)
	}))
}

// ComparedAt holds once the controller compared the Application at the
// commit commit() names (its status.sync.revision): what it shows is of that
// commit, not left from an earlier one.
func ComparedAt(name string, commit func() string) assert.Check {
	return describe(lifecycle.Application(name), "compared at the commit pushed", assert.Unscripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.ComparedAt(name, commit)(ctx)
	}))
}

// OperationAt holds when the Application's last operation is in phase p at
// the commit commit() names; auto: an auto-sync, ArgoCD's own.
func OperationAt(name string, p synccommon.OperationPhase, commit func() string, auto bool) assert.Check {
	return describe(lifecycle.Application(name), "operation "+string(p)+" at the commit pushed", assert.Unscripted(func(ctx context.Context) (bool, string, error) {
		return lifecycle.From(ctx).Apps.OperationAt(name, p, commit, auto)(ctx)
	}))
}

// ControllerLog is ArgoCD's application controller's log of the last since.
func ControllerLog(ctx context.Context, since time.Duration) (string, error) {
	return lifecycle.From(ctx).Kubectl.Run(ctx, "logs", "-n", argocd.Namespace, argocd.Controller, "--since="+since.String())
}
