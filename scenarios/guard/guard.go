package guard

import (
	"regexp"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/scenarios/internal/kruise"
)

const (
	// Minimal is the variant that reproduces ArgoCD's part without kruise.
	Minimal = matrix.Minimal

	app         = "kruise"
	kruiseNS    = "kruise-system"
	workloadsNS = "gitops-conformance-workloads"
	cloneSet    = "guarded"

	minimalApp = "failing-guard"
	minimalNS  = "gitops-conformance-guarded"

	preDelete = env.PreDeleteFinalizer

	// Window is how long a deletion is watched for going past the guard.
	// The guard fails within seconds and ArgoCD deletes it and creates it
	// again at its next look at the Application, so the window holds many
	// retries; a count k/N is of deletions watched this long.
	Window = 3 * time.Minute
	// managed is how long a CloneSet's controller has to create the Pod a
	// scale asks for (seconds where it runs).
	managed = time.Minute
)

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{matrix.Bug, "non-cascading", "delete-false", WorkloadsRemoved, Minimal}

// WorkloadsRemoved is the mitigation the guard itself asks for: no CloneSet
// left, so the guard passes, and the deletion must wait for it and then go.
// NOT_MITIGATED is make conform's deletion-hooks class on the real chart:
// the guard did not decide the deletion.
const WorkloadsRemoved = "workloads-removed"

var (
	clone     = env.Custom("clonesets.apps.kruise.io", "CloneSet", workloadsNS, cloneSet)
	clonePods = env.Selection{Kinds: "pods", Namespace: workloadsNS, Labels: "app=" + cloneSet}
	cloneCRD  = env.CRD("clonesets.apps.kruise.io")
	manager   = env.Deployment(kruiseNS, "kruise-controller-manager")
	// guardJob is the chart's Helm pre-delete hook Job (release kruise).
	guardJob      = env.Job(kruiseNS, "kruise-finalizer")
	controller    = env.StatefulSet(env.ArgoCDNamespace, "argocd-application-controller")
	cloneSetFiles = fixture.Chart("cloneset", map[string]any{"name": cloneSet, "namespace": workloadsNS})
	// stillManaged: the CloneSet, scaled to 3, counts 3 Pods: only its
	// controller (kruise's manager) writes its status.
	stillManaged = check.JSONPathIs(clone, "{.status.replicas}", "3")
	// what the guard did: read once the deletion went ahead or was held
	guardRan = []step.Step{env.See(check.EventSeen(guardJob, "BackoffLimitExceeded")), env.See(check.EventSeen(guardJob, "Completed"))}
)

// variant is how a variant deletes the Application and what it judges.
type variant struct {
	mode      env.Deletion
	options   []string // the Application's sync options
	workloads bool     // the user's CloneSet there when the deletion starts
	verdict   func() []step.Step
}

// variants are the variants of the real chart (Minimal: minimal).
var variants = map[string]variant{
	matrix.Bug:       {mode: env.Foreground, workloads: true, verdict: wentPastTheGuard},
	"non-cascading":  {mode: env.NonCascade, workloads: true, verdict: stillManagedOnceReleased},
	"delete-false":   {mode: env.Foreground, options: []string{"Delete=false"}, workloads: true, verdict: stillManagedOnceReleased},
	WorkloadsRemoved: {mode: env.Foreground, verdict: waitedForTheGuard},
}

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	if c.Variant.Name == Minimal {
		return minimal(c)
	}
	v := variants[c.Variant.Name]
	s := step.New(c.Report().ID()).Add(kruise.ThroughArgoCD(c.ComponentVersion, app)...).Add(
		env.CreateApp(kruise.Application(app, v.options...)), env.Sync(app),
		assert.Await(assert.Intervals.Install, assert.All(check.OperationPhaseIs(app, synccommon.OperationSucceeded), check.HealthIs(app, "Healthy"))),
		env.WatchLog(controller), env.Watch(env.Application(app)), env.Watch(cloneCRD), env.Watch(manager))
	if v.workloads {
		s.Add(
			// the user's workload, outside every Application
			env.ApplyNamespace(workloadsNS),
			// kruise's webhooks take CloneSets: ArgoCD's Healthy can come before
			// they serve (refused under load: four clusters on two cores)
			assert.That("kruise's webhooks admit the CloneSet (server-side dry run)", assert.Intervals.Rollout, check.Accepted(cloneSetFiles)),
			env.ApplyFiles("CloneSet "+clone.Namespace+"/"+cloneSet, cloneSetFiles),
			env.Watch(clone),
			assert.Await(assert.Intervals.Rollout, check.JSONPathIs(clone, "{.status.readyReplicas}", "2")))
	}
	return s.Add(deletion(app, v.mode)...).Add(v.verdict()...).Scenario()
}

// waitedForTheGuard: with no CloneSet left the guard passes, and the
// deletion waits for it and then goes.
func waitedForTheGuard() []step.Step {
	return append(append([]step.Step{
		assert.Resolved(assert.Intervals.Sync, assert.Intervals.HoldShort,
			assert.Named("application "+app+" deleted, after its guard Job completed", assert.All(check.AppGone(app), check.EventSeen(guardJob, "Completed"))))},
		held(app)...),
		env.See(check.EventSeen(guardJob, "Completed")), env.See(check.EventSeen(guardJob, "SuccessfulCreate")), env.See(check.Missing(manager)))
}

// wentPastTheGuard is the bug's verdict, and what the deletion took.
func wentPastTheGuard() []step.Step {
	steps := append(append([]step.Step{verdict(app)}, held(app)...), guardRan...)
	return append(steps,
		env.See(check.Missing(manager)), env.See(check.Exists(cloneCRD)), env.See(check.Exists(clone)),
		env.Observe("the CloneSet's Pods kept", assert.Not(check.NoneLeft(clonePods))),
		env.Scale(clone, 3),
		env.ObserveWithin("the CloneSet still managed: scaled to 3, it counts 3 Pods", managed, stillManaged))
}

// stillManagedOnceReleased: the deletion held by the guard is released by
// hand, as a user must, and OpenKruise is still at work once it went.
func stillManagedOnceReleased() []step.Step {
	return append(append([]step.Step{env.ObserveWithin("the deletion went past the failing guard", Window, wentAhead(app))}, guardRan...),
		env.Snapshot("at-window"),
		env.Unless(wentAhead(app), "the guard holds: ArgoCD's pre-delete finalizers removed by hand",
			env.RemoveFinalizer(env.Application(app), preDelete), env.RemoveFinalizer(env.Application(app), preDelete+"/cleanup")),
		assert.Await(assert.Intervals.Install, check.AppGone(app)),
		env.Scale(clone, 3),
		assert.Resolved(managed, assert.Intervals.HoldShort, assert.Named("application "+app+" gone and OpenKruise still at work: CloneSet "+cloneSet+", scaled to 3, counts 3 Pods", assert.All(check.AppGone(app), check.Exists(manager), stillManaged))))
}

// minimal is the bug on the suite's own chart: a ConfigMap guarded by a
// pre-delete hook Job that always fails (fixtures/charts/failing-guard).
func minimal(c matrix.Cell) step.Scenario {
	return step.New(c.Report().ID()).Add(
		env.ApplyNamespace(minimalNS),
		env.PushRepo(minimalApp, fixture.Chart("failing-guard", map[string]any{"name": minimalApp, "namespace": minimalNS, "image": c.ArgoCD.Image()})),
		env.CreateApp(fixture.Application(map[string]any{"name": minimalApp, "namespace": minimalNS})), env.Sync(minimalApp),
		assert.Await(assert.Intervals.Install, assert.All(check.OperationPhaseIs(minimalApp, synccommon.OperationSucceeded), check.HealthIs(minimalApp, "Healthy"))),
		env.WatchLog(controller), env.Watch(env.Application(minimalApp))).
		Add(deletion(minimalApp, env.Foreground)...).Add(verdict(minimalApp)).Add(held(minimalApp)...).Add(
		env.See(check.EventSeen(env.Job(minimalNS, minimalApp), "BackoffLimitExceeded")),
		env.See(check.Missing(env.ConfigMap(minimalNS, minimalApp+"-guarded")))).Scenario()
}

// deletion checks that ArgoCD took the chart's pre-delete hook as a PreDelete
// hook (its finalizer on the Application), then deletes the Application as a
// user does (`argocd app delete`: cascading in the foreground, or not), and
// makes sure the cell's end can remove ArgoCD's deletion finalizers, as a
// user whose guard cannot pass must.
func deletion(name string, mode env.Deletion) []step.Step {
	return []step.Step{
		assert.That("application "+name+" holds ArgoCD's "+preDelete+" (the chart's pre-delete hook taken as a PreDelete hook)",
			assert.Intervals.Sync, check.JSONPathMatches(env.Application(name), "{.metadata.finalizers}", regexp.QuoteMeta(preDelete)+`"`)),
		env.DeleteApp(name, mode), env.ReleaseDeletionHooksAtEnd(name),
	}
}

// wentAhead holds once ArgoCD declared the pre-delete phase done (its
// finalizer gone from the Application being deleted) or the Application is
// gone: the deletion went past the guard, which never succeeds here.
func wentAhead(name string) assert.Check {
	return assert.Any(check.AppGone(name), assert.Not(check.FinalizerPending(env.Application(name), preDelete)))
}

// verdict is the bug's: the deletion went past the failing guard within the
// window (REPRODUCED), or the guard held it (NOT_REPRODUCED).
func verdict(name string) step.Step {
	return assert.Occurs(Window, assert.Named("the deletion of application "+name+" went past its failing pre-delete guard ("+preDelete+" removed, or the Application gone)", wentAhead(name)))
}

// held reads what the Application shows at the verdict and waits, where the
// deletion went ahead, for it to go through, so that what follows reads what
// it took.
func held(name string) []step.Step {
	return []step.Step{
		env.See(check.DeletionErrorMatches(name, ".")),
		env.See(check.JSONPathMatches(env.Application(name), "{.metadata.finalizers}", ".")),
		env.Snapshot("at-verdict"),
		// at once where the guard holds
		env.ObserveWithin("application "+name+" gone, or still held by the guard", assert.Intervals.Install,
			assert.Any(check.AppGone(name), assert.Not(wentAhead(name)))),
	}
}
