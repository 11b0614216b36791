package openkruise

import (
	"regexp"
	"strings"
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

// probed are the namespaces whose Pod creation the bug's blast radius measures.
var probed = []string{"default", "argocd", "gitops-conformance-git", "kube-system", namespace}

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{matrix.Bug, "namespace-label", "label-after-stuck", "argocd-managed-namespace"}

var (
	managerDeployment = env.Deployment(namespace, manager)
	managerService    = env.Service(namespace, service)
	webhooks          = env.MutatingWebhooks(mutating)
	availableField    = check.Field{Of: managerDeployment, Path: `{.status.conditions[?(@.type=="Available")].status}`}
	available         = availableField.Is("True")
	caBundle          = check.JSONPathMatches(webhooks, `{.webhooks[?(@.name=="mpod.kb.io")].clientConfig.caBundle}`, ".")
	replicaSets       = env.ReplicaSet(namespace, "") // any of them
	stuck             = assert.All(
		check.JSONPathIs(managerDeployment, `{.status.conditions[?(@.type=="ReplicaFailure")].reason}`, "FailedCreate"),
		availableField.Matches("^(False)?$"), check.EventSeen(replicaSets, "FailedCreate", podHook), check.ReadyEndpoints(managerService, 0))
	deployment = "deployment " + namespace + "/" + manager
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	v, variant := c.ComponentVersion, c.Variant.Name
	chartVersion := strings.TrimPrefix(v, "v")
	chart := fixture.OfflinePullPolicy(fixture.UserChart(kruise.ChartsEnv, "openkruise", "kruise", chartVersion))
	var labels []string // what the namespace carries beforehand
	if variant == "namespace-label" {
		labels = []string{label}
	}
	rendered := fixture.HelmRender(chart, kruise.Release())
	s := step.New(c.Report().ID()).Add(
		env.Provided("chart kruise "+chartVersion, chart),
		env.Observe("chart kruise "+chartVersion+": "+podHook+" lets "+namespace+" through", LetsThrough(rendered, NamespaceLabels(len(labels) > 0))),
		// an ArgoCD cell's cascade deletion was seen to leave the CRDs behind,
		// which the next helm install refuses to adopt: clear them at the start
		// and, registered first, last at the end
		env.RemoveRendered("chart kruise "+chartVersion, rendered), env.RemoveRenderedAtEnd("chart kruise "+chartVersion, rendered),
		env.ApplyNamespace(namespace, labels...), env.ComponentImagesWith("openkruise", v, kruise.HookImage(chart)),
		env.Watch(env.Namespace(namespace)), env.Watch(webhooks), env.Watch(managerDeployment))
	if variant == "argocd-managed-namespace" {
		s.Add(env.PushRepo(app, chart), env.CreateApp(kruise.Application(app)), env.Sync(app))
	} else {
		s.Add(env.HelmInstallChart(kruise.Release(), chart))
	}
	// At natural timing the first manager Pod may be created before the
	// webhook configurations take effect (it then runs, and serves them): the
	// install is recorded as it went. The stuck state needs a manager Pod
	// created while none runs, as after a restart with one replica.
	s.Add(assert.That(deployment+" Available or in ReplicaFailure", assert.Intervals.Rollout, assert.Any(available, stuck)),
		env.Observe("install at natural timing: the first manager Pod rejected by "+podHook, stuck),
		// "none runs": no serving webhook endpoint (a terminating Pod still serves,
		// and kube-proxy sends to it when no ready one is left). The old Pod's
		// object may stay: vpod.kb.io (failurePolicy Fail) guards Pod deletion there
		env.If(available, "replace the manager while none runs (scale to 0, no serving endpoint, scale to 1)",
			env.Scale(managerDeployment, 0),
			assert.Await(assert.Intervals.Rollout, check.ServingEndpoints(managerService, 0)),
			env.Scale(managerDeployment, 1)))
	return s.Add(variants[variant]()...).Scenario()
}

// variants are each variant's steps after the restart.
var variants = map[string]func() []step.Step{
	"namespace-label": func() []step.Step {
		return append([]step.Step{assert.Resolved(assert.Intervals.Rollout, assert.Intervals.HoldShort,
			assert.Named(deployment+" Available with a CA bundle", assert.All(available, caBundle, check.ReadyEndpoints(managerService, 1))))}, probe()...)
	},
	matrix.Bug: func() []step.Step {
		steps := append(stuckInstall(func(what string, timeout time.Duration, c assert.Check) step.Step {
			return assert.Occurs(timeout, assert.Named(what, c))
		}), probe()...)
		return append(append(steps, assert.Symptom(assert.Intervals.Hold, assert.Named(deployment+" stuck in ReplicaFailure", stuck))), kubeSystem()...)
	},
	"argocd-managed-namespace": func() []step.Step {
		return append(append(stuckInstall(assert.That), probe()...),
			assert.Holds(deployment+" stuck in ReplicaFailure under ArgoCD", assert.Intervals.HoldShort, stuck),
			env.See(check.HealthIs(app, "Healthy")),
			env.See(check.OperationPhaseIs(app, synccommon.OperationSucceeded)),
			env.Observe("the Deployment's health as ArgoCD shows it", check.JSONPathMatches(env.Application(app),
				`{.status.resources[?(@.kind=="Deployment")].health}`, "Healthy")),
			env.Snapshot("at-stuck"),
			env.UpdateApp(app, "managedNamespaceMetadata labels "+label+", CreateNamespace=true", ManagedNamespace),
			// the API server's sync (UI, CLI) takes the Application's sync options;
			// env.Sync writes the operation itself, so it names them
			env.Sync(app, "CreateNamespace=true").As("sync the label"),
			assert.Resolved(assert.Intervals.Install, assert.Intervals.HoldShort, assert.Named(deployment+" Available and application "+app+" Healthy after managedNamespaceMetadata", assert.All(available, caBundle, check.HealthIs(app, "Healthy")))),
			env.See(check.JSONPathIs(env.Namespace(namespace), `{.metadata.labels.control-plane}`, strings.SplitN(label, "=", 2)[1])),
			deletion())
	},
	// the write-up's workaround on an install already stuck
	"label-after-stuck": func() []step.Step {
		return append(append(stuckInstall(assert.That), probe()...),
			env.Label(env.Namespace(namespace), label),
			assert.Resolved(assert.Intervals.Install, assert.Intervals.HoldShort, assert.Named(deployment+" Available after labelling", assert.All(available, caBundle))))
	},
}

// stuckInstall waits for the ReplicaFailure (wait: assert.Occurs where it is
// the verdict, assert.That where it is a precondition) and records the event.
func stuckInstall(wait func(string, time.Duration, assert.Check) step.Step) []step.Step {
	return []step.Step{wait(deployment+" ReplicaFailure FailedCreate by "+podHook, assert.Intervals.Rollout, stuck),
		env.See(check.EventSeen(replicaSets, "FailedCreate", podHook))}
}

// hookJob is the kruise chart's Helm pre-delete hook (1.8.x; 1.5.2 has
// none): a Job running openkruise/kruise-helm-hook, which fails when a
// CloneSet, an Advanced StatefulSet or an Advanced DaemonSet is left in the
// cluster (kruise's cmd/helm_hook). Offline its image is built with the
// manager's (HookImage); without it the hook's Pod cannot start.
const hookJob = "kruise-finalizer"

// deletion deletes the Application as a user does (foreground cascade) and
// records whether it goes. ArgoCD from 3.3 runs a chart's Helm pre-delete hook
// as a PreDelete hook and keeps the Application (pre-delete-finalizer.argocd.argoproj.io)
// until the hook succeeds; earlier releases never run it. Where the deletion
// is held, ArgoCD's pre-delete finalizers are removed by hand, as a user whose
// hook cannot run must, and the Application is seen to go. The hook Job's
// events say whether it ran: it is deleted once it succeeds
// (hook-delete-policy hook-succeeded), its events stay.
func deletion() step.Step {
	gone := check.AppGone(app)
	application := env.Application(app)
	hook := env.Job(namespace, hookJob)
	return env.InOrder("delete the application and see it go",
		env.DeleteApp(app, env.Foreground),
		env.ObserveWithin("application "+app+" gone after its deletion (foreground cascade)", assert.Intervals.Sync, gone),
		env.See(check.EventSeen(hook, "SuccessfulCreate")),
		env.See(check.EventSeen(hook, "Completed")),
		env.See(check.Exists(hook)),
		env.Observe("its Pod failed to get its image (the Pod's events)", check.EventSeen(env.Pod(namespace, ""), "Failed", "kruise-helm-hook")),
		env.If(assert.Not(gone), "the deletion held: evidence, then ArgoCD's pre-delete finalizers removed by hand",
			env.Snapshot("at-deletion-held"),
			env.RemoveFinalizer(application, env.PreDeleteFinalizer),
			env.RemoveFinalizer(application, env.PreDeleteFinalizer+"/cleanup"),
			env.ObserveWithin("application "+app+" gone once they are removed", assert.Intervals.Sync, gone)))
}

// kubeSystem records what the stuck install does to kube-system's own
// workloads, beyond the dry-run probe: a ReplicaSet there creates a Pod (coredns
// scaled from kubeadm's 2 to 3, back to 2 after, and at the end whatever
// happens). The chart's pod webhooks take every namespace without
// control-plane=openkruise; which of them also leave kube-system out is the
// chart's own business (1.5.2 as published does not, the directory edited a
// month later does: openkruise/charts#92), so the cell looks.
func kubeSystem() []step.Step {
	coredns := env.Deployment("kube-system", "coredns")
	rejected := check.JSONPathMatches(coredns, `{.status.conditions[?(@.type=="ReplicaFailure")].message}`, regexp.QuoteMeta(podHook))
	ready := check.JSONPathIs(coredns, `{.status.readyReplicas}`, "3")
	return []step.Step{env.ScaleAtEnd(coredns, 2), env.Scale(coredns, 3),
		env.ObserveWithin(coredns.String()+" scaled to 3: its new Pod rejected or ready", assert.Intervals.Rollout, assert.Any(rejected, ready)),
		env.Observe("a new coredns Pod in kube-system rejected by "+podHook+" (the Deployment's ReplicaFailure names it)", rejected),
		env.Scale(coredns, 2)}
}

// probe records, for each probed namespace, whether a Pod is admitted there.
func probe() []step.Step {
	var steps []step.Step
	for _, ns := range probed {
		steps = append(steps, env.Observe("a Pod in "+ns+" is admitted", check.Accepted(ProbePod(ns))))
	}
	return steps
}
