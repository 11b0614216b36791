// Package kyverno reproduces kyverno-argocd: the chart's post-upgrade hook
// Job kyverno-clean-reports runs as an ArgoCD PostSync hook on every sync;
// on ArgoCD releases that put argocd.argoproj.io/hook-finalizer on hooks, a
// Job that finishes fast can keep the finalizer while being deleted, and the
// sync waits on the hook for ever.
// Upstream: https://github.com/argoproj/argo-cd/issues?q=hook-finalizer+kyverno-clean-reports
//
// Steps: build the release's images (kyverno, kyvernopre, the hook's kubectl)
// offline; create the kyverno namespace; push charts/kyverno of the release's
// module to the in-cluster git server; create a Helm Application with the
// variant's values; sync (install: ArgoCD runs the post-upgrade hook here
// too) and wait for Succeeded; sync again (the upgrade), record whether the
// hook Job carries the finalizer, and wait until that sync completes or the
// Job is held by the finalizer. Verdict: `bug` holds the stuck state (Job deleting
// with the hook finalizer, operation Running on the hook), then removes the
// finalizer by hand and records whether the sync completes; `argocd-upgrade`
// (the cell's ArgoCD) and `hook-disabled` (policyReportsCleanup.enabled=false)
// must end Succeeded with no Job left.
package kyverno

import (
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

const (
	app       = "kyverno"
	namespace = "kyverno"
	job       = "kyverno-clean-reports"
	finalizer = "argocd.argoproj.io/hook-finalizer"
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) features.Feature {
	synced := env.OperationPhaseIs(app, synccommon.OperationSucceeded)
	stuck := assert.All(env.FinalizerPending("job", namespace, job, finalizer),
		env.OperationPhaseIs(app, synccommon.OperationRunning), env.OperationMessageContains(app, job))
	hookPhase := func(want string) assert.Check { // the hook's phase in the last sync's result, "" if it had none
		return env.JSONPathIs("applications.argoproj.io", "argocd", app,
			`{.status.operationState.syncResult.resources[?(@.name=="`+job+`")].hookPhase}`, want)
	}
	f := features.New(c.Report().ID()).
		Setup(env.ComponentImages("kyverno", c.ComponentVersion)).
		Setup(env.Apply("namespace "+namespace, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+namespace+"\n")).
		Setup(env.PushRepo(app, env.ComponentTree("kyverno", c.ComponentVersion, "chart"))).
		Setup(env.DeleteAtEnd("the webhook configurations kyverno registered", "validatingwebhookconfigurations,mutatingwebhookconfigurations", "webhook.kyverno.io/managed-by=kyverno")).
		Setup(env.CreateApp(Application(c.Variant.Name))).
		Setup(env.Watch("job", namespace, job)).
		Assess("install", env.Sync(app, SyncOptions...)).
		Assess("install Succeeded", assert.That("application "+app+" sync Succeeded", assert.Intervals.Install, synced)).
		Assess("upgrade", env.Sync(app, SyncOptions...)).
		Assess("hook created", env.ObserveWithin("hook Job "+job+" created (or the sync done first)", assert.Intervals.Sync, assert.Any(env.Exists("job", namespace, job), synced))).
		Assess("hook finalizers", env.Observe("hook Job carries "+finalizer, env.JSONPathMatches("job", namespace, job, "{.metadata.finalizers}", finalizer))).
		Assess("hook done or held", assert.That("sync completed or hook held", assert.Intervals.Sync,
			assert.Any(synced, env.OperationPhaseIs(app, synccommon.OperationFailed), env.FinalizerPending("job", namespace, job, finalizer))))
	switch c.Variant.Name {
	case "bug":
		f = f.Assess("hook result", env.Observe("hook "+job+" Succeeded in the sync result", hookPhase("Succeeded"))).
			Assess("stuck on the hook", assert.Symptom("sync stuck on hook "+job, assert.Intervals.Hold, stuck)).
			Assess("unblock by hand", env.RemoveFinalizer("job", namespace, job, finalizer)).
			Assess("after the unblock", env.ObserveWithin("sync Succeeded after the unblock", assert.Intervals.Sync, synced))
	case "hook-disabled":
		f = f.Assess("no hook", assert.Resolved("sync Succeeded without "+job, assert.Intervals.Sync, assert.Intervals.HoldShort,
			assert.All(synced, env.Missing("job", namespace, job), hookPhase(""))))
	default:
		f = f.Assess("hook completes", assert.Resolved("sync Succeeded, hook "+job+" Succeeded and deleted", assert.Intervals.Sync,
			assert.Intervals.HoldShort, assert.All(synced, hookPhase("Succeeded"), env.Missing("job", namespace, job))))
	}
	return f.Feature()
}
