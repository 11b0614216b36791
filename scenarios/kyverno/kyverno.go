package kyverno

import (
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

const (
	app       = "kyverno"
	namespace = "kyverno"
	job       = "kyverno-clean-reports"
	finalizer = "argocd.argoproj.io/hook-finalizer"
)

// Minimal is the variant that reproduces the ArgoCD side without Kyverno
// (fixtures/charts/hook-finalizer): the hook as Kyverno's chart declares it.
const Minimal = matrix.Minimal

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{matrix.Bug, "argocd-upgrade", "hook-disabled", Minimal}

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) features.Feature {
	synced := check.OperationPhaseIs(app, synccommon.OperationSucceeded)
	held := assert.All(check.FinalizerPending("job", namespace, job, finalizer),
		check.OperationPhaseIs(app, synccommon.OperationRunning), check.OperationMessageContains(app, job))
	done := assert.Any(synced, check.OperationPhaseIs(app, synccommon.OperationFailed), held)
	hookPhase := func(want string) assert.Check { // the hook's phase in the last sync's result, "" if it had none
		return check.JSONPathIs("applications.argoproj.io", "argocd", app,
			`{.status.operationState.syncResult.resources[?(@.name=="`+job+`")].hookPhase}`, want)
	}
	f := features.New(c.Report().ID())
	if c.Variant.Name == Minimal {
		// the ArgoCD side alone: the hook Job as Kyverno's chart declares it, no Kyverno
		f = f.Setup(env.ApplyFiles("namespace "+namespace, fixture.Chart("probes", map[string]any{"namespace": map[string]any{"name": namespace}}))).
			Setup(env.PushRepo(app, fixture.Chart("hook-finalizer", map[string]any{"name": job, "namespace": namespace, "image": c.ArgoCD.Image()}))).
			Setup(env.CreateApp(fixture.Application(map[string]any{"name": app, "namespace": namespace})))
	} else {
		chart := fixture.ComponentTree("kyverno", c.ComponentVersion, "chart")
		if c.Variant.Mitigation() {
			// a mitigation of the clean-reports hook needs a chart that has it (gone from 3.5.1 on)
			f = f.Setup(env.Applies("chart "+c.ComponentVersion, chart, MissingHook(c.Variant.Name)))
		}
		f = f.Setup(env.ComponentImages("kyverno", c.ComponentVersion)).
			Setup(env.ApplyFiles("namespace "+namespace, fixture.Chart("probes", map[string]any{"namespace": map[string]any{"name": namespace}}))).
			Setup(env.PushRepo(app, chart)).
			Setup(env.DeleteAtEnd("the webhook configurations kyverno registered", "validatingwebhookconfigurations,mutatingwebhookconfigurations", "webhook.kyverno.io/managed-by=kyverno")).
			Setup(env.CreateApp(Application(c.Variant.Name)))
	}
	f = f.
		// a held hook also holds the Application's cascade deletion
		Setup(env.RemoveFinalizerAtEnd("job", namespace, job, finalizer)).
		Setup(env.Watch("job", namespace, job)).
		// the install runs the post-upgrade hook too: it can be held already
		Assess("install", env.Sync(app, SyncOptions...)).
		Assess("install done or held", assert.That("install sync completed or held on the hook", assert.Intervals.Install, done)).
		Assess("install held?", env.Observe("install sync held on hook "+job+" (deleting, finalizer kept, operation Running)", held)).
		// ArgoCD starts no sync while one runs: a user whose install is held cannot sync again
		Assess("upgrade", env.Unless(held, "sync again (the upgrade)", env.Sync(app, SyncOptions...))).
		Assess("hook created", env.ObserveWithin("hook Job "+job+" created (or the sync done first)", assert.Intervals.Sync, assert.Any(check.Exists("job", namespace, job), synced))).
		Assess("hook finalizers", env.Observe("hook Job carries "+finalizer, check.JSONPathMatches("job", namespace, job, "{.metadata.finalizers}", finalizer))).
		Assess("hook done or held", assert.That("sync completed or hook held", assert.Intervals.Sync, done))
	switch c.Variant.Name {
	case Minimal:
		f = f.Assess("hook result", env.Observe("hook "+job+" Succeeded in the sync result", hookPhase("Succeeded"))).
			Assess("stuck on the hook", assert.Symptom("sync stuck on hook "+job, assert.Intervals.Hold, held)).
			Assess("unblock by hand", env.If(held, "remove the finalizer by hand", env.RemoveFinalizer("job", namespace, job, finalizer)))
	case matrix.Bug:
		f = f.Assess("hook result", env.Observe("hook "+job+" Succeeded in the sync result", hookPhase("Succeeded"))).
			Assess("stuck on the hook", assert.Symptom("sync stuck on hook "+job, assert.Intervals.Hold, held)).
			// the upgrades below replace the controller (and its log); the unblock deletes the Job
			Assess("evidence of the verdict", env.Snapshot("at-verdict"))
		for _, to := range c.Upgrades {
			// the new controller resumes the operation at once: a hold tells
			f = f.Assess("upgrade to "+to.String(), env.If(held, "upgrade argocd in place to "+to.String(), env.InOrder(env.UpgradeArgoCD(to),
				env.ObserveWithin("held sync Succeeded after the upgrade to "+to.String(), assert.Intervals.Hold, synced))))
		}
		f = f.Assess("unblock by hand", env.If(held, "remove the finalizer by hand", env.RemoveFinalizer("job", namespace, job, finalizer))).
			Assess("after the unblock", env.ObserveWithin("sync Succeeded (after the unblock, if one was needed)", assert.Intervals.Sync, synced))
	case "hook-disabled":
		f = f.Assess("no hook", assert.Resolved("sync Succeeded without "+job, assert.Intervals.Sync, assert.Intervals.HoldShort,
			assert.All(synced, check.Missing("job", namespace, job), hookPhase(""))))
	case "argocd-upgrade":
		f = f.Assess("hook completes", assert.Resolved("sync Succeeded, hook "+job+" Succeeded and deleted", assert.Intervals.Sync,
			assert.Intervals.HoldShort, assert.All(synced, hookPhase("Succeeded"), check.Missing("job", namespace, job))))
	}
	return f.Feature()
}
