// Package openkruise reproduces openkruise-webhook: OpenKruise 1.5.2 installed
// with installation.createNamespace=false into a kruise-system namespace made
// beforehand without control-plane=openkruise. The manager's own Pods then
// fall under Kruise's pod mutating webhook (mpod.kb.io, failurePolicy Fail),
// whose backend is that manager: the Deployment sits in ReplicaFailure.
// Upstream: https://github.com/openkruise/kruise/issues?q=createNamespace+webhook+kruise-system
// Chart: https://github.com/openkruise/charts/blob/master/versions/kruise/1.5.2/templates/webhookconfiguration.yaml
//
// Steps: create kruise-system (labelled in `namespace-label`); provide the
// manager image (offline: built from the module); render the install
// (offline: the module's config/default with the chart's webhook selectors,
// see AsChart; online: the chart through the Helm SDK); apply it with the
// manager at 0 replicas, then the webhook configurations, then scale the
// manager to 1, so the first manager Pod always meets the webhook. Verdict:
// `bug` holds ReplicaFailure/FailedCreate, not Available, an event naming
// mpod.kb.io and no ready webhook endpoints, and records which namespaces can
// still create Pods; `namespace-label` becomes Available with a CA bundle;
// `label-after-stuck` labels the stuck install's namespace and waits for it to
// recover on its own. Cleanup deletes the webhook configurations first.
package openkruise

import (
	"strings"

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
	rendered := fixture.ByMode(
		fixture.Transform(fixture.KustomizeBuild("openkruise", v, "kustomize"), AsChart(v)),
		fixture.HelmTemplate("openkruise", "kruise", strings.TrimPrefix(v, "v"), "kruise", namespace,
			map[string]any{"installation": map[string]any{"createNamespace": false}, "manager": map[string]any{"replicas": 1}}))
	parts := fixture.Transform(rendered, Split)

	f := features.New(c.Report().ID()).
		Setup(env.Apply("namespace "+namespace, Namespace(variant == "namespace-label"))).
		Setup(env.ComponentImages("openkruise", v)).
		Setup(env.ApplyFiles("openkruise "+v+" with the manager at 0 replicas", fixture.Pick(parts, "install.yaml"))).
		Setup(env.ApplyFiles("openkruise "+v+" webhook configurations", fixture.Pick(parts, "webhooks.yaml"))).
		Setup(env.Watch("mutatingwebhookconfiguration", "", mutating)).
		Setup(env.Scale("deployment", namespace, manager, 1))

	available := check.JSONPathIs("deployment", namespace, manager, `{.status.conditions[?(@.type=="Available")].status}`, "True")
	caBundle := check.JSONPathMatches("mutatingwebhookconfiguration", "", mutating, `{.webhooks[?(@.name=="mpod.kb.io")].clientConfig.caBundle}`, ".")
	stuck := assert.All(
		check.JSONPathIs("deployment", namespace, manager, `{.status.conditions[?(@.type=="ReplicaFailure")].reason}`, "FailedCreate"),
		check.JSONPathMatches("deployment", namespace, manager, `{.status.conditions[?(@.type=="Available")].status}`, "^(False)?$"),
		check.EventSeen(namespace, "ReplicaSet", "FailedCreate", podHook),
		check.ReadyEndpoints(namespace, service, 0))

	if variant == "namespace-label" {
		f = f.Assess("manager Available", assert.Resolved("deployment "+namespace+"/"+manager+" Available with a CA bundle",
			assert.Intervals.Rollout, assert.Intervals.HoldShort, assert.All(available, caBundle, check.ReadyEndpoints(namespace, service, 1))))
		for _, ns := range probed {
			f = f.Assess("probe "+ns, env.Observe("a Pod in "+ns+" is admitted", check.Accepted(ProbePod(ns))))
		}
		return f.Feature()
	}
	f = f.Assess("ReplicaFailure", assert.That("deployment "+namespace+"/"+manager+" ReplicaFailure FailedCreate by "+podHook,
		assert.Intervals.Rollout, stuck)).
		Assess("event", env.Observe("the ReplicaSet's FailedCreate event names "+podHook, check.EventSeen(namespace, "ReplicaSet", "FailedCreate", podHook)))
	for _, ns := range probed {
		f = f.Assess("probe "+ns, env.Observe("a Pod in "+ns+" is admitted", check.Accepted(ProbePod(ns))))
	}
	if variant == "bug" {
		return f.Assess("stays stuck", assert.Symptom("deployment "+namespace+"/"+manager+" stuck in ReplicaFailure", assert.Intervals.Hold, stuck)).Feature()
	}
	// label-after-stuck: the write-up's workaround on an install already stuck
	return f.Assess("label", env.Label("namespace", "", namespace, label)).
		Assess("recovers", assert.Resolved("deployment "+namespace+"/"+manager+" Available after labelling",
			assert.Intervals.Install, assert.Intervals.HoldShort, assert.All(available, caBundle))).
		Feature()
}
