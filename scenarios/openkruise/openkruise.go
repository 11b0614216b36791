package openkruise

import (
	"regexp"
	"strings"

	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// probed are the namespaces whose Pod creation the bug's blast radius measures.
var probed = []string{"default", "argocd", "gitops-conformance-git", "kube-system", namespace}

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{matrix.Bug, "namespace-label", "label-after-stuck", "argocd-managed-namespace"}

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) features.Feature {
	v, variant := c.ComponentVersion, c.Variant.Name
	chartVersion := strings.TrimPrefix(v, "v")
	chart := fixture.OfflinePullPolicy(fixture.UserChart(ChartsEnv, "openkruise", "kruise", chartVersion))
	labelled := variant == "namespace-label"
	viaArgoCD := variant == "argocd-managed-namespace"

	rendered := fixture.HelmRender(chart, Release())
	f := features.New(c.Report().ID()).
		Setup(env.Provided("chart kruise "+chartVersion, chart)).
		Setup(env.Observe("chart kruise "+chartVersion+": "+podHook+" lets "+namespace+" through",
			LetsThrough(rendered, NamespaceLabels(labelled)))).
		// an ArgoCD cell's cascade deletion was seen to leave the CRDs behind,
		// which the next helm install refuses to adopt: clear them at the start
		// and, registered first, last at the end
		Setup(env.RemoveRendered("chart kruise "+chartVersion, rendered)).
		Setup(env.RemoveRenderedAtEnd("chart kruise "+chartVersion, rendered)).
		Setup(env.ApplyFiles("namespace "+namespace, Namespace(labelled))).
		Setup(env.ComponentImagesWith("openkruise", v, HookImage(chart))).
		Setup(env.Watch("namespace", "", namespace)).
		Setup(env.Watch("mutatingwebhookconfiguration", "", mutating)).
		Setup(env.Watch("deployment", namespace, manager))
	if viaArgoCD {
		f = f.Setup(env.PushRepo(app, chart)).
			Setup(env.CreateApp(Application())).
			Setup(env.Sync(app))
	} else {
		f = f.Setup(env.HelmInstallChart(Release(), chart))
	}

	available := check.JSONPathIs("deployment", namespace, manager, `{.status.conditions[?(@.type=="Available")].status}`, "True")
	caBundle := check.JSONPathMatches("mutatingwebhookconfiguration", "", mutating, `{.webhooks[?(@.name=="mpod.kb.io")].clientConfig.caBundle}`, ".")
	stuck := assert.All(
		check.JSONPathIs("deployment", namespace, manager, `{.status.conditions[?(@.type=="ReplicaFailure")].reason}`, "FailedCreate"),
		check.JSONPathMatches("deployment", namespace, manager, `{.status.conditions[?(@.type=="Available")].status}`, "^(False)?$"),
		check.EventSeen(namespace, "ReplicaSet", "FailedCreate", podHook),
		check.ReadyEndpoints(namespace, service, 0))
	deployment := "deployment " + namespace + "/" + manager

	// At natural timing the first manager Pod may be created before the
	// webhook configurations take effect (it then runs, and serves them): the
	// install is recorded as it went. The stuck state needs a manager Pod
	// created while none runs, as after a restart with one replica.
	f = f.Assess("first manager Pod", assert.That(deployment+" Available or in ReplicaFailure", assert.Intervals.Rollout, assert.Any(available, stuck))).
		Assess("natural timing", env.Observe("install at natural timing: the first manager Pod rejected by "+podHook, stuck)).
		// "none runs": no serving webhook endpoint (a terminating Pod still serves,
		// and kube-proxy sends to it when no ready one is left). The old Pod's
		// object may stay: vpod.kb.io (failurePolicy Fail) guards Pod deletion there
		Assess("restart", env.If(available, "replace the manager while none runs (scale to 0, no serving endpoint, scale to 1)", env.InOrder(
			env.Scale("deployment", namespace, manager, 0),
			assert.That("no serving manager endpoint", assert.Intervals.Rollout, check.ServingEndpoints(namespace, service, 0)),
			env.Scale("deployment", namespace, manager, 1))))

	if labelled {
		f = f.Assess("manager Available", assert.Resolved(deployment+" Available with a CA bundle",
			assert.Intervals.Rollout, assert.Intervals.HoldShort, assert.All(available, caBundle, check.ReadyEndpoints(namespace, service, 1))))
		return probe(f).Feature()
	}
	if variant == matrix.Bug {
		f = f.Assess("ReplicaFailure", assert.Occurs(deployment+" ReplicaFailure FailedCreate by "+podHook, assert.Intervals.Rollout, stuck))
	} else {
		f = f.Assess("ReplicaFailure", assert.That(deployment+" ReplicaFailure FailedCreate by "+podHook, assert.Intervals.Rollout, stuck))
	}
	f = f.Assess("event", env.Observe("the ReplicaSet's FailedCreate event names "+podHook, check.EventSeen(namespace, "ReplicaSet", "FailedCreate", podHook)))
	f = probe(f)
	switch variant {
	case matrix.Bug:
		return kubeSystem(f.Assess("stays stuck", assert.Symptom(deployment+" stuck in ReplicaFailure", assert.Intervals.Hold, stuck))).Feature()
	case "argocd-managed-namespace":
		return f.Assess("stays stuck", assert.Holds(deployment+" stuck in ReplicaFailure under ArgoCD", assert.Intervals.HoldShort, stuck)).
			Assess("argocd health", env.Observe("application "+app+" health Healthy", check.HealthIs(app, "Healthy"))).
			Assess("argocd operation", env.Observe("application "+app+" sync operation Succeeded", check.OperationPhaseIs(app, synccommon.OperationSucceeded))).
			Assess("argocd deployment", env.Observe("the Deployment's health as ArgoCD shows it", check.JSONPathMatches("applications.argoproj.io", "argocd", app,
				`{.status.resources[?(@.kind=="Deployment")].health}`, "Healthy"))).
			Assess("evidence of the stuck install", env.Snapshot("at-stuck")).
			Assess("label the GitOps way", env.UpdateApp(app, "managedNamespaceMetadata labels "+label+", CreateNamespace=true", ManagedNamespace)).
			// the API server's sync (UI, CLI) takes the Application's sync options;
			// env.Sync writes the operation itself, so it names them
			Assess("sync the label", env.Sync(app, "CreateNamespace=true")).
			Assess("recovers", assert.Resolved(deployment+" Available and application "+app+" Healthy after managedNamespaceMetadata",
				assert.Intervals.Install, assert.Intervals.HoldShort, assert.All(available, caBundle, check.HealthIs(app, "Healthy")))).
			Assess("namespace labels", env.Observe(namespace+" labelled "+label, check.JSONPathIs("namespace", "", namespace,
				`{.metadata.labels.control-plane}`, strings.SplitN(label, "=", 2)[1]))).
			Assess("delete", deletion()).
			Feature()
	case "label-after-stuck": // the write-up's workaround on an install already stuck
		return f.Assess("label", env.Label("namespace", "", namespace, label)).
			Assess("recovers", assert.Resolved(deployment+" Available after labelling",
				assert.Intervals.Install, assert.Intervals.HoldShort, assert.All(available, caBundle))).
			Feature()
	}
	// a variant not in Variants (suites.Matrix refuses it first): no verdict, the cell ends ERROR
	return f.Feature()
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
func deletion() features.Func {
	gone := check.AppGone(app)
	return env.InOrder(
		env.DeleteApp(app, argocd.Foreground),
		env.ObserveWithin("application "+app+" gone after its deletion (foreground cascade)", assert.Intervals.Sync, gone),
		env.Observe("the chart's pre-delete hook Job "+namespace+"/"+hookJob+" created (its events)", check.EventSeen(namespace, "Job", "SuccessfulCreate", hookJob)),
		env.Observe("the hook Job completed (its events)", check.EventSeen(namespace, "Job", "Completed", hookJob)),
		env.Observe("the hook Job still exists", check.Exists("job", namespace, hookJob)),
		env.Observe("its Pod failed to get its image (the Pod's events)", check.EventSeen(namespace, "Pod", "Failed", "kruise-helm-hook")),
		env.If(assert.Not(gone), "the deletion held: evidence, then ArgoCD's pre-delete finalizers removed by hand", env.InOrder(
			env.Snapshot("at-deletion-held"),
			env.RemoveFinalizer("applications.argoproj.io", "argocd", app, "pre-delete-finalizer.argocd.argoproj.io"),
			env.RemoveFinalizer("applications.argoproj.io", "argocd", app, "pre-delete-finalizer.argocd.argoproj.io/cleanup"),
			env.ObserveWithin("application "+app+" gone once they are removed", assert.Intervals.Sync, gone))))
}

// kubeSystem records what the stuck install does to kube-system's own
// workloads, beyond the dry-run probe: a ReplicaSet there creates a Pod (coredns
// scaled from kubeadm's 2 to 3, back to 2 after, and at the end whatever
// happens). The chart's pod webhooks take every namespace without
// control-plane=openkruise; which of them also leave kube-system out is the
// chart's own business (1.5.2 as published does not, the directory edited a
// month later does: openkruise/charts#92), so the cell looks.
func kubeSystem(f *features.FeatureBuilder) *features.FeatureBuilder {
	const ns, coredns = "kube-system", "coredns"
	rejected := check.JSONPathMatches("deployment", ns, coredns, `{.status.conditions[?(@.type=="ReplicaFailure")].message}`, regexp.QuoteMeta(podHook))
	ready := check.JSONPathIs("deployment", ns, coredns, `{.status.readyReplicas}`, "3")
	return f.Assess("kube-system: one more coredns Pod", env.InOrder(
		env.ScaleAtEnd("deployment", ns, coredns, 2),
		env.Scale("deployment", ns, coredns, 3))).
		Assess("kube-system: the new Pod", env.ObserveWithin("deployment "+ns+"/"+coredns+" scaled to 3: its new Pod rejected or ready",
			assert.Intervals.Rollout, assert.Any(rejected, ready))).
		Assess("kube-system: rejected", env.Observe("a new coredns Pod in "+ns+" rejected by "+podHook+" (the Deployment's ReplicaFailure names it)", rejected)).
		Assess("kube-system: scale back", env.Scale("deployment", ns, coredns, 2))
}

// probe records, for each probed namespace, whether a Pod is admitted there.
func probe(f *features.FeatureBuilder) *features.FeatureBuilder {
	for _, ns := range probed {
		f = f.Assess("probe "+ns, env.Observe("a Pod in "+ns+" is admitted", check.Accepted(ProbePod(ns))))
	}
	return f
}
