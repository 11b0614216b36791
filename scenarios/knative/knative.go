package knative

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
	app    = "knative-serving"
	ns     = "knative-serving"
	config = "config.webhook.serving.knative.dev"
	reject = `failed calling webhook "` + config + `"`
	labels = "app.kubernetes.io/name=knative-serving"
)

var (
	configuration = env.ValidatingWebhooks(config)
	webhook       = env.Deployment(ns, "webhook")
	webhookPods   = env.Selection{Kinds: "pods", Namespace: ns, Labels: "app=webhook"}
	configs       = "validatingwebhookconfigurations,mutatingwebhookconfigurations"
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	if c.Variant.Name == Minimal {
		return minimalFeature(c)
	}
	v := c.ComponentVersion
	files := Manifests(v, c.Variant.Name == "env-flag")
	s := step.New(c.Report().ID()).Add(
		env.DeleteAtEnd("Knative webhook configurations and CRDs", env.Selection{Kinds: configs + ",customresourcedefinitions", Labels: labels}),
		env.ApplyFiles("namespace "+ns, fixture.Pick(files, "namespace.yaml")),
		// runs before the namespace's deletion: Knative's CRs keep finalizers once their controllers are gone
		env.ReleaseAtEnd("Knative custom resources", labels, ns),
		env.ComponentImages("knative", v), env.PushRepo(app, files), env.CreateApp(Application()), env.Sync(app),
		// the first sync applies the CRs in the wave of their CRDs and may fail
		// ("ensure CRDs are installed first"); a user syncs again
		assert.That("first sync completed", assert.Intervals.Install, assert.Any(
			check.OperationPhaseIs(app, synccommon.OperationSucceeded), check.OperationPhaseIs(app, synccommon.OperationFailed))),
		env.Sync(app).As("sync again"), env.Watch(configuration))
	s.Add(installed("installed")...)
	if c.Variant.Name == "flag-later" {
		s.Add(env.PushRepo(app, Manifests(v, true)).As("push the flag"), env.Sync(app).As("sync the flag"))
		s.Add(installed("flag rolled out",
			check.JSONPathMatches(webhook, `{.spec.template.spec.containers[0].env[?(@.name=="`+FlagEnv+`")].value}`, "^true$"),
			check.JSONPathIs(webhook, "{.status.updatedReplicas}/{.status.replicas}", "1/1"))...)
	}
	s.Add(deletion()...)
	if !c.Variant.Mitigation() {
		return s.Add(assert.Symptom(assert.Intervals.Hold, assert.Named("configuration left and the guarded ConfigMap rejected", assert.All(check.Exists(configuration), check.Rejected(Guarded, reject))))).Scenario()
	}
	// the cascade has been waited for above (the Application gone, or its
	// DeletionError): what ArgoCD deletes is gone by now, so a hold suffices
	return s.Add(assert.Resolved(assert.Intervals.Hold, assert.Intervals.HoldShort, assert.Named("configuration gone and the guarded ConfigMap admitted", assert.All(check.Missing(configuration), check.Accepted(Guarded))))).Scenario()
}

// installed waits for the sync, the webhook's reconciled configuration and
// the extra checks, records the ownerReferences and the health, and has the
// running webhook admit the guarded ConfigMap.
func installed(what string, extra ...assert.Check) []step.Step {
	checks := append([]assert.Check{
		check.OperationPhaseIs(app, synccommon.OperationSucceeded),
		check.JSONPathIs(webhook, "{.status.availableReplicas}", "1"),
		check.JSONPathMatches(configuration, "{.webhooks[0].rules[0].resources}", "configmaps"),
	}, extra...)
	return []step.Step{
		assert.That(what+": synced, webhook available, configuration reconciled", assert.Intervals.Install, assert.All(checks...)),
		env.Observe(what+": ownerReferences of "+config, check.JSONPathMatches(configuration, "{.metadata.ownerReferences}", "Namespace")),
		env.Observe(what+": application health", check.HealthIs(app, "Healthy")),
		assert.That(what+": guarded ConfigMap admitted by the running webhook", assert.Intervals.Sync, check.Accepted(Guarded)),
	}
}

// deletion deletes the Application as the bug does (background cascade)
// and records what a user sees while the webhook goes and after.
func deletion() []step.Step {
	return []step.Step{env.DeleteApp(app, env.Background),
		// runs before the Application's own cleanup: configurations left behind
		// can block its deletion (Knative's DELETE rules on its own resources)
		env.DeleteAtEnd("orphaned Knative webhook configurations", env.Selection{Kinds: configs, Labels: labels}),
		assert.Await(assert.Intervals.Sync, assert.All(check.Missing(webhook), check.Missing(env.Service(ns, "webhook")))),
		// The webhook Pod terminates (~45 s measured; grace period 300 s, and
		// delete --grace-period=1 does not end it sooner). Meanwhile the API
		// server may still reach it over a connection it holds (1.20 on
		// Kubernetes v1.33.13: every run; on v1.37.2 no release, in no run:
		// the knative README), so the configurations bite only once the Pod is gone: record
		// what a user sees meanwhile and how long it takes.
		env.Observe("guarded ConfigMap while the webhook Pod terminates", check.Accepted(Guarded)),
		env.SeeWithin(assert.Intervals.Install, check.NoneLeft(webhookPods)),
		assert.Await(assert.Intervals.Poll, check.NoneLeft(webhookPods)),
		env.Observe("configurations after the deletion", assert.All(check.Exists(configuration),
			check.Exists(env.ValidatingWebhooks("validation.webhook.serving.knative.dev")),
			check.Exists(env.MutatingWebhooks("webhook.serving.knative.dev")))),
		env.SeeWithin(assert.Intervals.Hold, check.AppGone(app)),
		env.See(check.DeletionErrorMatches(app, ".")),
		assert.That("unguarded ConfigMap admitted", assert.Intervals.Sync, check.Accepted(Unguarded))}
}
