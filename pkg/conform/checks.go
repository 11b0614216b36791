package conform

import (
	"context"
	"fmt"
	"strings"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Check is one bug class, one a scenario reproduced or one an upstream
// report of 2026 describes, asked of any chart: a cell whose outcome is
// REPRODUCED when the chart shows the class.
type Check struct {
	Name string
	// Summary says what the check does and what REPRODUCED means.
	Summary string
	// Seed is the scenario whose bug the class generalizes, or Report the
	// upstream report (owner/repo#N) of a class no scenario reproduces.
	Seed, Report string
	// SelfHeal: the Application syncs itself (automated, selfHeal,
	// ServerSideApply=true); no sync is asked of it.
	SelfHeal bool
	// before are the check's own steps before the install (nil for none).
	before func(k *cell) []step.Step
	steps  func(k *cell) []step.Step
}

// The checks, in the order a run takes them.
var checks = []Check{
	{Name: "crd-diff", Seed: "kubeovn-argocd", steps: crdDiff,
		Summary: "sync, hard refresh: REPRODUCED unless the Application is Synced within 3 minutes and stays so for the hold (the resources ArgoCD shows OutOfSync and the chart's fields the live objects lack are recorded)"},
	{Name: "hook-stuck", Seed: "kyverno-argocd", steps: hookStuck,
		Summary: "sync twice (install, upgrade: the hooks run each time): REPRODUCED when the sync is held Running by a hook deleted with ArgoCD's hook finalizer still on, for the hold"},
	{Name: "self-blocking-webhook", Seed: "openkruise-webhook", steps: selfBlocking,
		Summary: "install into the namespace made beforehand without labels; replace the workloads serving the chart's webhooks while none runs: REPRODUCED when a workload of the chart stays unavailable, its Pods rejected by a webhook of the chart"},
	{Name: "leftover-webhook", Seed: "knative-argocd", steps: leftoverWebhook,
		Summary: "delete the Application with cascade (background): REPRODUCED when a webhook configuration of the chart is left calling a service that is gone (a fail-closed one is proven by a rejected dry run)"},
	{Name: "namespace-kept", Seed: "kargo-argocd", before: sentinelsFirst, steps: namespaceKept,
		Summary: "the namespace made beforehand holds a ConfigMap and a Secret; delete the extra manifests, then the Application with cascade (foreground): REPRODUCED when the namespace or what it held is deleted"},
	{Name: "deletion-hooks", Seed: "openkruise-guard-argocd", steps: deletionHooks,
		Summary: "delete the Application with cascade (foreground): REPRODUCED unless it is gone within 3 minutes after each of the chart's deletion hook Jobs (Helm pre-delete and post-delete, ArgoCD PreDelete and PostDelete) completed; ArgoCD holding the deletion on an error of its own, or deleting past a hook that has not completed, is the class (the DeletionError and the hooks' events are recorded)"},
	{Name: "helm-lookup", Report: "kubeovn/kube-ovn#6248", steps: helmLookup,
		Summary: "after the sync, the chart rendered twice with Helm's lookup answered by the cluster and twice with lookup answering nothing: REPRODUCED when a field (or an object) of the former, the same in both, differs from both of the latter and ArgoCD's render has the latter's (the templates calling lookup, the objects, their templates and fields are recorded)"},
	{Name: "hook-cannot-run", Report: "KBVE/kbve#10564", steps: hookHeld,
		Summary: "sync: REPRODUCED when a Pod of the chart's hooks cannot run (its image cannot be pulled, or it is Unschedulable) and the sync stays Running (or Terminating) for 3 minutes (the hooks' Pods and what each waits on are recorded)"},
	{Name: "hook-kind-missing", Report: "castai/helm-charts#1526", before: (*cell).unservedHooks, steps: hookKind,
		Summary: "sync: REPRODUCED when the sync fails on an object of the chart whose kind the cluster does not serve, as gitops-engine's check of every task's kind, hooks included, before the dry run and the first phase fails on a kind another hook would make (the hooks whose kind is not served before the sync, and which hooks ran, are recorded)"},
	{Name: "self-heal-fight", Report: "openkruise/charts#192", SelfHeal: true, steps: selfHealFight,
		Summary: "the Application syncs itself (automated, selfHeal, ServerSideApply=true): REPRODUCED when ArgoCD's self-heal syncs the chart 3 times more within 3 minutes of its first sync, as when a controller rewrites a field the chart sets (the fields ArgoCD shows OutOfSync and the objects' field managers are recorded)"},
}

// Checks are the checks, one a bug class.
func Checks() []Check { return append([]Check(nil), checks...) }

// Names are the checks' names, in order.
func Names() []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.Name
	}
	return out
}

func lookup(name string) (Check, bool) {
	for _, c := range checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// crdDiff is kubeovn-argocd's class: a resource ArgoCD can never bring in
// sync (Kube-OVN's CRD carries keys the API server drops).
func crdDiff(k *cell) []step.Step {
	// right after a sync ArgoCD can show resources OutOfSync for seconds (its
	// cache catching up: run 20261124-124253, CRDs Synced 30 s later): the
	// class is a difference that stays
	return append(k.synced(), env.Refresh(k.app, true),
		assert.Unsettled(assert.Intervals.Sync, assert.Intervals.Hold, assert.Named("application "+k.app+" Synced after a sync and a hard refresh, and staying so", check.SyncStatusIs(k.app, v1alpha1.SyncStatusCodeSynced))),
		env.Observe("the resources ArgoCD shows OutOfSync, and the chart's fields the live objects lack or hold otherwise",
			Drift(k.app, k.spec.Rendered)))
}

// hookStuck is kyverno-argocd's class: a hook ArgoCD deleted while its own
// hook finalizer is still on holds the sync that waits for the deletion.
func hookStuck(k *cell) []step.Step {
	hooks := k.spec.Rendered.Hooks()
	held := check.HeldByHook(k.app, appcell.Refs(hooks))
	succeeded := check.OperationPhaseIs(k.app, synccommon.OperationSucceeded)
	done := assert.Any(succeeded, check.OperationPhaseIs(k.app, synccommon.OperationFailed), held)
	return []step.Step{env.Observe("the chart's hooks ArgoCD runs at a sync", k.hooksListed()),
		assert.That("install sync completed or held by a hook", assert.Intervals.Install, done),
		assert.That("install sync Succeeded or held by a hook", assert.Intervals.Poll, assert.Any(succeeded, held)),
		k.recordWebhooks(),
		// ArgoCD starts no sync while one runs: a user whose install is held cannot sync again
		env.Unless(held, "sync again (an upgrade: the hooks run again)", env.Sync(k.app, k.spec.SyncOptions...)),
		assert.That("second sync completed or held by a hook", assert.Intervals.Install, done),
		assert.That("second sync Succeeded or held by a hook", assert.Intervals.Poll, assert.Any(succeeded, held)),
		env.See(check.HookResults(k.app)),
		assert.Symptom(assert.Intervals.Hold, assert.Named("sync held by a hook deleted with "+check.HookFinalizer+" still on", held))}
}

// selfBlocking is openkruise-webhook's class: a webhook of the chart,
// failing closed, takes the chart's own namespace as platform teams create
// it (no labels), and rejects the Pods of the workload that serves it.
func selfBlocking(k *cell) []step.Step {
	available, blocked := k.allAvailable(), k.anyBlocked()
	settled := assert.Any(available, blocked)
	return append(k.synced(),
		assert.That("the chart's workloads available, or one blocked by a webhook of the chart", assert.Intervals.Install, settled),
		env.Observe("the chart's webhooks and namespace "+k.spec.Namespace+" as labelled", Selection(k.spec.Namespace, k.spec.Rendered, k.chartWebhooks)),
		env.Observe("at natural timing: a workload of the chart blocked by a webhook of the chart", blocked),
		// at natural timing the first Pods may be created before the webhook
		// configurations (they then run and serve them); a Pod created while
		// none runs, as after a restart, meets them
		env.If(available, "replace the workloads serving the chart's webhooks while none runs (scale to 0, no serving endpoint, scale back)", k.restart()),
		assert.That("after the restart: the chart's workloads available, or one blocked by a webhook of the chart", assert.Intervals.Rollout, settled),
		assert.Symptom(assert.Intervals.Hold, assert.Named("a workload of the chart blocked by a webhook of the chart", blocked)))
}

// leftoverWebhook is knative-argocd's class: a webhook configuration the
// cascade leaves (something else owns it) while the service it calls goes.
func leftoverWebhook(k *cell) []step.Step {
	return append(k.synced(),
		assert.Await(assert.Intervals.Install, k.allAvailable()),
		env.Observe("the ownerReferences of the chart's webhook configurations", k.configsRemain()),
		env.DeleteApp(k.app, env.Background),
		// runs first at the end: a configuration left can block the cleanup
		k.forgetWebhooksAtEnd().As("unblock the cleanup: at the end, first, delete the chart's webhook configurations left"),
		env.SeeWithin(assert.Intervals.Hold, check.AppGone(k.app)),
		assert.Await(assert.Intervals.Sync, k.servicesGone()),
		// a terminating webhook Pod may still answer over a connection the API
		// server holds: the proof below waits for them to go
		env.SeeWithin(assert.Intervals.Install, k.servingPodsGone()),
		env.Observe("what the cascade left of the chart, with ownerReferences", check.Remains(k.spec.Rendered.Refs)),
		assert.Symptom(assert.Intervals.HoldShort,
			assert.Named("a webhook configuration of the chart left behind, calling a service that is gone", assert.Later(func(context.Context) (assert.Check, error) { return check.LeftBehind(k.Recorded), nil }))),
		env.Observe("a configuration left with failurePolicy Fail rejects an object it matches (server-side dry run)", k.rejectsProbe()))
}

// sentinelsFirst puts the team's things into the namespace before the
// install (namespace-kept).
func sentinelsFirst(k *cell) []step.Step {
	return []step.Step{env.ApplyFiles("a ConfigMap and a Secret in "+k.spec.Namespace, k.sentinels())}
}

// namespaceKept is kargo-argocd's class: a namespace that was there before
// the install (with the team's things in it) goes with the chart.
func namespaceKept(k *cell) []step.Step {
	kept := check.Kept(k.spec.Namespace, Sentinel, Sentinel)
	steps := append(k.synced(),
		assert.Await(assert.Intervals.Install, k.allAvailable()),
		assert.Holds("namespace "+k.spec.Namespace+" Active with its ConfigMap and Secret while the chart runs", assert.Intervals.HoldShort, kept))
	if k.spec.Extra != "" {
		steps = append(steps, env.DeleteFiles("the extra manifests (EXTRA)", k.extra()))
	}
	return append(steps, env.DeleteApp(k.app, env.Foreground),
		env.ObserveWithin("application "+k.app+" deleted (its resources first)", assert.Intervals.Install, check.AppGone(k.app)),
		env.Observe("what the cascade left of the chart, with ownerReferences", check.Remains(k.spec.Rendered.Refs)),
		assert.Occurs(assert.Intervals.Hold, assert.Named("namespace "+k.spec.Namespace+" deleted, or its ConfigMap or Secret", assert.Not(kept))))
}

// deletionHooks is openkruise-guard-argocd's class: the chart's deletion
// hooks, which ArgoCD runs from 3.3, do not decide the deletion. ArgoCD
// holds it on an error of its own (v3.3.0-v3.3.14 create a cluster-scoped
// hook again at every pass and stop at "already exists"), or deletes past a
// hook that has not completed (3.4 on, and 3.3 from v3.3.15, when the hook Job
// is not in its cache yet: argo-cd#29100). A chart without deletion hooks is NOT_REPRODUCED once the
// Application is gone.
func deletionHooks(k *cell) []step.Step {
	hooks := k.spec.Rendered.DeletionHooks()
	var names []string
	var completed, failed []assert.Check
	for _, h := range hooks {
		names = append(names, fmt.Sprintf("%s %s/%s (%s)", h.GetKind(), h.GetNamespace(), h.GetName(), h.Phase))
		if h.GetKind() != "Job" {
			continue
		}
		ns := h.GetNamespace()
		if ns == "" {
			ns = k.spec.Namespace
		}
		job := env.Job(ns, h.GetName())
		completed = append(completed, check.EventSeen(job, "Completed"))
		failed = append(failed, check.EventSeen(job, "BackoffLimitExceeded"))
	}
	steps := append(k.synced(),
		env.Observe("the chart's deletion hooks", assert.Constant(len(hooks) > 0, text.OrNone(strings.Join(names, ", ")))),
		env.DeleteApp(k.app, env.Foreground))
	steps = append(steps, env.ReleaseDeletionHooksAtEnd(k.app),
		assert.Unsettled(assert.Intervals.Sync, assert.Intervals.HoldShort,
			assert.Named("application "+k.app+" deleted, after each of the chart's deletion hook Jobs completed", assert.All(append([]assert.Check{check.AppGone(k.app)}, completed...)...))),
		env.See(check.DeletionErrorMatches(k.app, ".")))
	for _, c := range failed {
		steps = append(steps, env.See(c))
	}
	return steps
}
