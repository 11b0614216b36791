// Package openkruise reproduces openkruise-webhook: the kruise Helm chart
// installed as the write-up's users did (`helm install kruise kruise/kruise
// --namespace=kruise-system --version=1.5.2`, installation.createNamespace=false,
// manager.replicas=1) into a kruise-system made beforehand without
// control-plane=openkruise. The chart's pod webhook mpod.kb.io (failurePolicy
// Fail) then selects the manager's own namespace, and its only backend is that
// manager: the Deployment sits in ReplicaFailure.
// Upstream: openkruise/kruise#1521 "[BUG] Can't install due to webhook race condition".
// Chart: https://github.com/openkruise/charts/tree/master/versions/kruise
//
// Steps: resolve the real chart (offline from OPENKRUISE_CHARTS, else the cell
// is SKIPPED saying what to provide; online the chart repository); record
// mpod.kb.io's namespaceSelector as the chart renders it and whether it lets
// kruise-system through; create kruise-system (labelled in `namespace-label`);
// build the manager image from the module (offline); install the chart with
// the write-up's values through the Helm SDK, without --wait, at natural
// timing (Helm creates the Deployment, then the webhook configurations). In
// `argocd-managed-namespace` an ArgoCD Application installs the same chart,
// pushed to the in-cluster git server, into the existing namespace
// (CreateNamespace=false). Wait until the manager is Available or in
// ReplicaFailure and record which (whether the first manager Pod met the
// webhook is a race at natural timing); if it is Available, replace it while
// none runs (scale to 0, no serving webhook endpoint, scale to 1), as a restart
// with one replica does. Verdict: `bug` holds ReplicaFailure/FailedCreate, not
// Available, an event naming mpod.kb.io and no ready webhook endpoints, and
// records which namespaces can still create Pods; `namespace-label` is
// Available with a CA bundle (after the same restart); `label-after-stuck`
// labels the stuck install's namespace and waits for it to recover on its own;
// `argocd-managed-namespace` requires the same stuck state, records it as
// ArgoCD shows it (health, sync operation; evidence in at-stuck/), then adds
// managedNamespaceMetadata (with CreateNamespace=true) to the Application,
// syncs, and waits for the manager Available and the Application Healthy.
package openkruise

import (
	"regexp"
	"strings"

	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// probed are the namespaces whose Pod creation the bug's blast radius measures.
var probed = []string{"default", "argocd", "gitops-conformance-git", "kube-system", namespace}

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
		Setup(env.ComponentImages("openkruise", v)).
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
	if variant == "bug" {
		f = f.Assess("ReplicaFailure", assert.Occurs(deployment+" ReplicaFailure FailedCreate by "+podHook, assert.Intervals.Rollout, stuck))
	} else {
		f = f.Assess("ReplicaFailure", assert.That(deployment+" ReplicaFailure FailedCreate by "+podHook, assert.Intervals.Rollout, stuck))
	}
	f = f.Assess("event", env.Observe("the ReplicaSet's FailedCreate event names "+podHook, check.EventSeen(namespace, "ReplicaSet", "FailedCreate", podHook)))
	f = probe(f)
	switch variant {
	case "bug":
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
			Feature()
	}
	// label-after-stuck: the write-up's workaround on an install already stuck
	return f.Assess("label", env.Label("namespace", "", namespace, label)).
		Assess("recovers", assert.Resolved(deployment+" Available after labelling",
			assert.Intervals.Install, assert.Intervals.HoldShort, assert.All(available, caBundle))).
		Feature()
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
