package guard

import (
	"strings"
	"time"

	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/scenarios/openkruise"
)

const (
	// Minimal is the variant that reproduces ArgoCD's part without kruise.
	Minimal = matrix.Minimal

	app         = "kruise"
	kruiseNS    = "kruise-system"
	workloadsNS = "gitops-conformance-workloads"
	cloneSet    = "guarded"
	// guardJob is the chart's Helm pre-delete hook Job (release kruise).
	guardJob = "kruise-finalizer"

	minimalApp = "failing-guard"
	minimalNS  = "gitops-conformance-guarded"

	preDelete = "pre-delete-finalizer.argocd.argoproj.io"

	// Window is how long a deletion is watched for going past the guard.
	// The guard fails within seconds and ArgoCD deletes and creates it again
	// at its next look at the Application, so the window holds many retries;
	// a count k/N is of deletions watched this long.
	Window = 3 * time.Minute
)

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{matrix.Bug, "crds-delete-false", "non-cascading", Minimal}

// guarded are the CRDs whose objects kruise's guard looks for (its
// ClusterRole lists these three): the crds-delete-false variant keeps them.
var guarded = []string{"clonesets.apps.kruise.io", "statefulsets.apps.kruise.io", "daemonsets.apps.kruise.io"}

var (
	application = env.Object{Kind: "applications.argoproj.io", Namespace: argocd.Namespace, Name: app}
	clone       = env.Object{Kind: "clonesets.apps.kruise.io", Namespace: workloadsNS, Name: cloneSet}
	clonePods   = env.Selection{Kinds: "pods", Namespace: workloadsNS, Labels: "app=" + cloneSet}
	cloneCRD    = env.Object{Kind: "customresourcedefinition", Name: guarded[0]}
	controller  = env.Object{Kind: "statefulset", Namespace: argocd.Namespace, Name: "argocd-application-controller"}
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	if c.Variant.Name == Minimal {
		return minimal(c)
	}
	s := step.New(c.Report().ID()).Add(install(c)...).Add(
		env.WatchLog(controller), env.Watch(application), env.Watch(cloneCRD),
		// the user's workload, outside every Application
		env.ApplyFiles("namespace "+workloadsNS, fixture.Chart("probes", map[string]any{"namespace": map[string]any{"name": workloadsNS}})),
		env.ApplyFiles("CloneSet "+workloadsNS+"/"+cloneSet, fixture.Chart("cloneset", map[string]any{"name": cloneSet, "namespace": workloadsNS})),
		env.Watch(clone),
		assert.That("CloneSet "+cloneSet+": 2 Pods ready", assert.Intervals.Rollout, check.JSONPathIs(clone, "{.status.readyReplicas}", "2")))
	mode := argocd.Foreground
	switch c.Variant.Name {
	case "crds-delete-false":
		for _, crd := range guarded {
			s.Add(env.Annotate(env.Object{Kind: "customresourcedefinition", Name: crd}, "argocd.argoproj.io/sync-options=Delete=false"))
		}
	case "non-cascading":
		mode = argocd.NonCascade
	}
	s.Add(deletion(app, mode)...).Add(
		env.Observe("the guard Job "+kruiseNS+"/"+guardJob+" failed (its events)", check.EventSeen(env.Object{Kind: "Job", Namespace: kruiseNS}, "BackoffLimitExceeded", guardJob)),
		env.Observe("the guard Job completed (its events)", check.EventSeen(env.Object{Kind: "Job", Namespace: kruiseNS}, "Completed", guardJob)))
	kept := assert.All(check.Exists(clone), assert.Not(check.NoneLeft(clonePods)))
	if !c.Variant.Mitigation() {
		return s.Add(verdict(app)).Add(losses(app,
			env.Observe("CloneSet "+workloadsNS+"/"+cloneSet+" gone", check.Missing(clone)),
			env.Observe("its Pods gone", check.NoneLeft(clonePods)),
			env.Observe("CRD "+guarded[0]+" gone", check.Missing(cloneCRD)))...).Scenario()
	}
	return s.Add(mitigated(app, "the CloneSet "+cloneSet+" and its Pods still there", kept)...).Scenario()
}

// minimal is the bug on the suite's own chart: a ConfigMap guarded by a
// pre-delete hook Job that always fails (fixtures/charts/failing-guard).
func minimal(c matrix.Cell) step.Scenario {
	guardedCM := env.Object{Kind: "configmap", Namespace: minimalNS, Name: minimalApp + "-guarded"}
	return step.New(c.Report().ID()).Add(
		env.ApplyFiles("namespace "+minimalNS, fixture.Chart("probes", map[string]any{"namespace": map[string]any{"name": minimalNS}})),
		env.PushRepo(minimalApp, fixture.Chart("failing-guard", map[string]any{"name": minimalApp, "namespace": minimalNS, "image": c.ArgoCD.Image()})),
		env.WatchLog(controller), env.Watch(env.Object{Kind: "applications.argoproj.io", Namespace: argocd.Namespace, Name: minimalApp}),
		env.CreateApp(fixture.Application(map[string]any{"name": minimalApp, "namespace": minimalNS})), env.Sync(minimalApp),
		assert.That("application "+minimalApp+" synced and Healthy", assert.Intervals.Install,
			assert.All(check.OperationPhaseIs(minimalApp, synccommon.OperationSucceeded), check.HealthIs(minimalApp, "Healthy")))).
		Add(deletion(minimalApp, argocd.Foreground)...).Add(
		env.Observe("the guard Job failed (its events)", check.EventSeen(env.Object{Kind: "Job", Namespace: minimalNS}, "BackoffLimitExceeded", minimalApp)),
		verdict(minimalApp)).Add(losses(minimalApp, env.Observe("the guarded "+guardedCM.String()+" gone", check.Missing(guardedCM)))...).Scenario()
}

// deletion checks that ArgoCD took the chart's pre-delete hook as a PreDelete
// hook (its finalizer on the Application), then deletes the Application as a
// user does (`argocd app delete`: cascading in the foreground, or not), and
// makes sure the cell's end can remove ArgoCD's deletion finalizers, as a
// user whose guard cannot pass must.
func deletion(name string, mode argocd.Deletion) []step.Step {
	obj := env.Object{Kind: "applications.argoproj.io", Namespace: argocd.Namespace, Name: name}
	return []step.Step{
		assert.That("application "+name+" holds ArgoCD's "+preDelete+" (the chart's pre-delete hook taken as a PreDelete hook)",
			assert.Intervals.Sync, check.JSONPathMatches(obj, "{.metadata.finalizers}", strings.ReplaceAll(preDelete, ".", `\.`)+`"`)),
		env.DeleteApp(name, mode),
		// registered after the deletion, they run before its cleanup waits for
		// the Application to go
		env.RemoveFinalizerAtEnd(obj, preDelete),
		env.RemoveFinalizerAtEnd(obj, preDelete+"/cleanup"),
	}
}

// wentAhead holds once ArgoCD declared the pre-delete phase done (its
// finalizer gone from the Application being deleted) or the Application is
// gone: the deletion went past the guard, which never succeeds here.
func wentAhead(name string) assert.Check {
	obj := env.Object{Kind: "applications.argoproj.io", Namespace: argocd.Namespace, Name: name}
	return assert.Any(check.AppGone(name), assert.Not(check.FinalizerPending(obj, preDelete)))
}

// verdict is the bug's: the deletion went past the failing guard within the
// window (REPRODUCED), or the guard held it (NOT_REPRODUCED, with what the
// Application then shows).
func verdict(name string) step.Step {
	return assert.Occurs("the deletion of application "+name+" went past its failing pre-delete guard ("+preDelete+" removed, or the Application gone)",
		Window, wentAhead(name))
}

// losses reads what the held Application shows, and what the deletion took
// once it has gone through (the losing runs): gone are the observations of
// what it may take.
func losses(name string, gone ...step.Step) []step.Step {
	obj := env.Object{Kind: "applications.argoproj.io", Namespace: argocd.Namespace, Name: name}
	steps := []step.Step{
		env.Observe("application "+name+"'s DeletionError", check.JSONPathMatches(obj, `{.status.conditions[?(@.type=="DeletionError")].message}`, ".")),
		env.Observe("application "+name+"'s finalizers", check.JSONPathMatches(obj, "{.metadata.finalizers}", ".")),
		env.Snapshot("at-verdict"),
		env.If(wentAhead(name), "the deletion went ahead: what it took, once it is through",
			env.ObserveWithin("application "+name+" gone", assert.Intervals.Install, check.AppGone(name))),
	}
	return append(steps, gone...)
}

// mitigated is a mitigation's verdict: whether or not the deletion goes past
// the guard within the window, once the Application is gone (ArgoCD's
// pre-delete finalizers removed by hand where the guard still holds, as a
// user whose guard cannot pass must), kept must hold.
func mitigated(name, what string, kept assert.Check) []step.Step {
	obj := env.Object{Kind: "applications.argoproj.io", Namespace: argocd.Namespace, Name: name}
	return []step.Step{
		env.ObserveWithin("the deletion went past the failing guard", Window, wentAhead(name)),
		env.Snapshot("at-window"),
		env.Unless(wentAhead(name), "the guard holds: ArgoCD's pre-delete finalizers removed by hand",
			env.RemoveFinalizer(obj, preDelete), env.RemoveFinalizer(obj, preDelete+"/cleanup")),
		assert.Resolved("application "+name+" deleted, and "+what, assert.Intervals.Install, assert.Intervals.HoldShort,
			assert.All(check.AppGone(name), kept)),
	}
}

// install is the kruise chart as published, at the cell's version, through
// the Application kruise (release kruise, the write-up's values, manual
// syncs), synced until Healthy.
func install(c matrix.Cell) []step.Step {
	return append(openkruise.ThroughArgoCD(c.ComponentVersion, app),
		env.CreateApp(openkruise.Application()), env.Sync(app),
		assert.That("application "+app+" synced and Healthy", assert.Intervals.Install,
			assert.All(check.OperationPhaseIs(app, synccommon.OperationSucceeded), check.HealthIs(app, "Healthy"))))
}
