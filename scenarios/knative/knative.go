package knative

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
	app    = "knative-serving"
	ns     = "knative-serving"
	vwc    = "validatingwebhookconfiguration"
	config = "config.webhook.serving.knative.dev"
	reject = `failed calling webhook "` + config + `"`
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) features.Feature {
	if c.Variant.Name == Minimal {
		return minimalFeature(c)
	}
	v, variant := c.ComponentVersion, c.Variant.Name
	files := Manifests(v, variant == "env-flag")
	f := features.New(c.Report().ID()).
		Setup(env.DeleteAtEnd("Knative webhook configurations and CRDs",
			"validatingwebhookconfigurations,mutatingwebhookconfigurations,customresourcedefinitions", "app.kubernetes.io/name=knative-serving")).
		Setup(env.ApplyFiles("namespace "+ns, fixture.Pick(files, "namespace.yaml"))).
		// runs before the namespace's deletion: Knative's CRs keep finalizers once their controllers are gone
		Setup(env.ReleaseAtEnd("Knative custom resources", "app.kubernetes.io/name=knative-serving", ns)).
		Setup(env.ComponentImages("knative", v)).
		Setup(env.PushRepo(app, files)).
		Setup(env.CreateApp(Application())).
		Setup(env.Sync(app)).
		// the first sync applies the CRs in the wave of their CRDs and may fail
		// ("ensure CRDs are installed first"); a user syncs again
		Assess("first sync done", assert.That("first sync completed", assert.Intervals.Install, assert.Any(
			check.OperationPhaseIs(app, synccommon.OperationSucceeded), check.OperationPhaseIs(app, synccommon.OperationFailed)))).
		Assess("sync again", env.Sync(app))
	f = installed(f, "installed")
	if variant == "flag-later" {
		f = installed(f.Assess("add the flag", env.PushRepo(app, Manifests(v, true))).Assess("sync the flag", env.Sync(app)),
			"flag rolled out", check.JSONPathMatches("deployment", ns, "webhook",
				`{.spec.template.spec.containers[0].env[?(@.name=="`+FlagEnv+`")].value}`, "^true$"),
			check.JSONPathIs("deployment", ns, "webhook", "{.status.updatedReplicas}/{.status.replicas}", "1/1"))
	}
	f = f.Assess("delete the application", env.DeleteApp(app, env.Background)).
		// runs before the Application's own cleanup: configurations left behind
		// can block its deletion (Knative's DELETE rules on its own resources)
		Assess("unblock the cleanup", env.DeleteAtEnd("orphaned Knative webhook configurations",
			"validatingwebhookconfigurations,mutatingwebhookconfigurations", "app.kubernetes.io/name=knative-serving")).
		Assess("webhook gone", assert.That("webhook Deployment and Service gone", assert.Intervals.Sync,
			assert.All(check.Missing("deployment", ns, "webhook"), check.Missing("service", ns, "webhook")))).
		// The webhook Pod terminates (~45 s measured; grace period 300 s, and
		// delete --grace-period=1 does not end it sooner). Meanwhile the API
		// server may still reach it over a connection it holds (1.20 on
		// Kubernetes v1.33.13: every run; on v1.37.2 no release, in no run:
		// the knative README), so the configurations bite only once the Pod is gone: record
		// what a user sees meanwhile and how long it takes.
		Assess("while the webhook terminates", env.Observe("guarded ConfigMap while the webhook Pod terminates", check.Accepted(Guarded))).
		Assess("webhook Pods gone", env.ObserveWithin("webhook Pods gone", assert.Intervals.Install, check.NoneLeft("pods", ns, "app=webhook"))).
		Assess("webhook Pods gone for sure", assert.That("webhook Pods gone", assert.Intervals.Poll, check.NoneLeft("pods", ns, "app=webhook"))).
		Assess("configurations left", env.Observe("configurations after the deletion", assert.All(
			check.Exists(vwc, "", config), check.Exists(vwc, "", "validation.webhook.serving.knative.dev"),
			check.Exists("mutatingwebhookconfiguration", "", "webhook.serving.knative.dev")))).
		Assess("application gone?", env.ObserveWithin("application deleted", assert.Intervals.Hold, check.AppGone(app))).
		Assess("deletion error?", env.Observe("application deletion error", check.JSONPathMatches("applications.argoproj.io", "argocd", app,
			"{.status.conditions[?(@.type==\"DeletionError\")].message}", "."))).
		Assess("negative control", assert.That("unguarded ConfigMap admitted", assert.Intervals.Sync, check.Accepted(Unguarded)))
	if !c.Variant.Mitigation() {
		return f.Assess("guarded operation rejected", assert.Symptom("configuration left and the guarded ConfigMap rejected",
			assert.Intervals.Hold, assert.All(check.Exists(vwc, "", config), check.Rejected(Guarded, reject)))).Feature()
	}
	// the cascade has been waited for above (the Application gone, or its
	// DeletionError): what ArgoCD deletes is gone by now, so a hold suffices
	return f.Assess("guarded operation admitted", assert.Resolved("configuration gone and the guarded ConfigMap admitted",
		assert.Intervals.Hold, assert.Intervals.HoldShort, assert.All(check.Missing(vwc, "", config), check.Accepted(Guarded)))).Feature()
}

// installed waits for the sync, the webhook's reconciled configuration and
// the extra checks, records the ownerReferences and the health, and has the
// running webhook admit the guarded ConfigMap.
func installed(f *features.FeatureBuilder, what string, extra ...assert.Check) *features.FeatureBuilder {
	checks := append([]assert.Check{
		check.OperationPhaseIs(app, synccommon.OperationSucceeded),
		check.JSONPathIs("deployment", ns, "webhook", "{.status.availableReplicas}", "1"),
		check.JSONPathMatches(vwc, "", config, "{.webhooks[0].rules[0].resources}", "configmaps"),
	}, extra...)
	return f.Assess(what, assert.That(what+": synced, webhook available, configuration reconciled", assert.Intervals.Install, assert.All(checks...))).
		Assess("watch "+config, env.Watch(vwc, "", config)).
		Assess("ownerReferences", env.Observe(what+": ownerReferences of "+config,
			check.JSONPathMatches(vwc, "", config, "{.metadata.ownerReferences}", "Namespace"))).
		Assess("health", env.Observe(what+": application health", check.HealthIs(app, "Healthy"))).
		Assess("guarded admitted", assert.That(what+": guarded ConfigMap admitted by the running webhook", assert.Intervals.Sync, check.Accepted(Guarded)))
}
