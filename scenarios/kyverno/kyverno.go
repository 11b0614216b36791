package kyverno

import (
	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
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

var (
	hookJob    = env.Job(namespace, job)
	synced     = check.OperationPhaseIs(app, synccommon.OperationSucceeded)
	held       = assert.All(check.FinalizerPending(hookJob, finalizer), check.OperationPhaseIs(app, synccommon.OperationRunning), check.OperationMessageContains(app, job))
	done       = assert.Any(synced, check.OperationPhaseIs(app, synccommon.OperationFailed), held)
	stuck      = assert.Symptom(assert.Intervals.Hold, assert.Named("sync stuck on hook "+job, held))
	hookResult = env.See(hookPhase("Succeeded"))
	unblock    = env.If(held, "remove the finalizer by hand", env.RemoveFinalizer(hookJob, finalizer))
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	return step.New(c.Report().ID()).Add(install(c)...).Add(
		// a held hook also holds the Application's cascade deletion
		env.RemoveFinalizerAtEnd(hookJob, finalizer),
		env.Watch(hookJob),
		// the install runs the post-upgrade hook too: it can be held already
		env.Sync(app, SyncOptions...),
		assert.That("install sync completed or held on the hook", assert.Intervals.Install, done),
		env.Observe("install sync held on hook "+job+" (deleting, finalizer kept, operation Running)", held),
		// ArgoCD starts no sync while one runs: a user whose install is held cannot sync again
		env.Unless(held, "sync again (the upgrade)", env.Sync(app, SyncOptions...)),
		env.SeeWithin(assert.Intervals.Sync, assert.Any(check.Exists(hookJob), synced)),
		env.See(check.JSONPathMatches(hookJob, "{.metadata.finalizers}", finalizer)),
		assert.That("sync completed or hook held", assert.Intervals.Sync, done),
	).Add(verdicts[c.Variant.Name](c)...).Scenario()
}

// verdicts are each variant's last steps.
var verdicts = map[string]func(matrix.Cell) []step.Step{
	Minimal: func(matrix.Cell) []step.Step { return []step.Step{hookResult, stuck, unblock} },
	matrix.Bug: func(c matrix.Cell) []step.Step {
		// the upgrades below replace the controller (and its log); the unblock deletes the Job
		steps := []step.Step{hookResult, stuck, env.Snapshot("at-verdict")}
		for _, to := range c.Upgrades {
			// the new controller resumes the operation at once: a hold tells
			steps = append(steps, env.If(held, "upgrade argocd in place to "+to.String(), env.UpgradeArgoCD(to),
				env.ObserveWithin("held sync Succeeded after the upgrade to "+to.String(), assert.Intervals.Hold, synced)))
		}
		return append(steps, unblock, env.ObserveWithin("sync Succeeded (after the unblock, if one was needed)", assert.Intervals.Sync, synced))
	},
	"hook-disabled": func(matrix.Cell) []step.Step {
		return []step.Step{assert.Resolved(assert.Intervals.Sync, assert.Intervals.HoldShort,
			assert.Named("sync Succeeded without "+job, assert.All(synced, check.Missing(hookJob), hookPhase(""))))}
	},
	"argocd-upgrade": func(matrix.Cell) []step.Step {
		return []step.Step{assert.Resolved(assert.Intervals.Sync,
			assert.Intervals.HoldShort, assert.Named("sync Succeeded, hook "+job+" Succeeded and deleted", assert.All(synced, hookPhase("Succeeded"), check.Missing(hookJob))))}
	},
}

// install puts Kyverno's chart (or, for Minimal, the hook Job alone, as
// Kyverno's chart declares it) in git and creates its Application.
func install(c matrix.Cell) []step.Step {
	ns := env.ApplyNamespace(namespace)
	if c.Variant.Name == Minimal {
		return []step.Step{ns,
			env.PushRepo(app, fixture.Chart("hook-finalizer", map[string]any{"name": job, "namespace": namespace, "image": c.ArgoCD.Image()})),
			env.CreateApp(fixture.Application(map[string]any{"name": app, "namespace": namespace}))}
	}
	chart := fixture.ComponentTree("kyverno", c.ComponentVersion, "chart")
	var steps []step.Step
	if c.Variant.Mitigation() {
		// a mitigation of the clean-reports hook needs a chart that has it (gone from 3.5.1 on)
		steps = append(steps, env.Applies("chart "+c.ComponentVersion, chart, MissingHook(c.Variant.Name)))
	}
	return append(steps, env.ComponentImages("kyverno", c.ComponentVersion), ns, env.PushRepo(app, chart),
		env.DeleteAtEnd("the webhook configurations kyverno registered", env.Selection{
			Kinds: "validatingwebhookconfigurations,mutatingwebhookconfigurations", Labels: "webhook.kyverno.io/managed-by=kyverno"}),
		env.CreateApp(Application(c.Variant.Name)))
}

// hookPhase holds when the hook's phase in the last sync's result is want
// ("": it had none).
func hookPhase(want string) assert.Check {
	phase := want
	if phase == "" {
		phase = "no phase"
	}
	return assert.Named("hook "+job+" "+phase+" in the sync result", check.JSONPathIs(env.Application(app),
		`{.status.operationState.syncResult.resources[?(@.name=="`+job+`")].hookPhase}`, want))
}
