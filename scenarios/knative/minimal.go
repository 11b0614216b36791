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

// Minimal is the variant that reproduces the ArgoCD side without Knative
// (fixtures/charts/owned-webhook): a failurePolicy Fail configuration owned
// by its Namespace, with the Deployment and Service behind it in the
// Application.
const Minimal = matrix.Minimal

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{matrix.Bug, "env-flag", "flag-later", Minimal}

const (
	minimalApp    = "owned-webhook"
	minimalNS     = "gitops-conformance-webhook"
	minimalConfig = minimalApp + ".conformance.gitops.io"
	guardLabel    = "conformance.gitops.io/guarded"
)

// minimalFeature: the Namespace outside the Application; push the fixture
// (its webhook Deployment runs the cell's ArgoCD image, which is on the
// node); sync; make the configuration owned by the Namespace (controller:
// false), standing in for Knative's webhook, and hard-refresh so ArgoCD's
// cache holds it; delete the Application with
// background cascade, as the bug does. Verdict: the configuration left while
// its Deployment and Service are gone, and a guarded ConfigMap rejected (a
// negative control, unlabelled, admitted).
func minimalFeature(c matrix.Cell) step.Scenario {
	configMap := func(name string, labels map[string]string) fixture.Files {
		return fixture.Chart("probes", map[string]any{"configMap": map[string]any{
			"name": name, "namespace": minimalNS, "labels": labels, "data": map[string]string{"probe": "true"}}})
	}
	guarded, unguarded := configMap("guarded", map[string]string{guardLabel: "true"}), configMap("unguarded", nil)
	configuration := env.ValidatingWebhooks(minimalConfig)
	deployment, service := env.Deployment(minimalNS, minimalApp), env.Service(minimalNS, minimalApp)
	return step.New(c.Report().ID()).Add(
		env.DeleteAtEnd("the minimal webhook configuration", env.Selection{Kinds: "validatingwebhookconfigurations", Labels: "app.kubernetes.io/part-of=gitops-conformance-minimal"}),
		env.ApplyNamespace(minimalNS),
		env.PushRepo(minimalApp, fixture.Chart("owned-webhook", map[string]any{
			"name": minimalApp, "namespace": minimalNS, "image": c.ArgoCD.Image(), "guardLabel": guardLabel})),
		env.CreateApp(fixture.Application(map[string]any{"name": minimalApp})),
		env.Sync(minimalApp),
		assert.Await(assert.Intervals.Install, assert.All(
			check.OperationPhaseIs(minimalApp, synccommon.OperationSucceeded),
			check.JSONPathIs(deployment, "{.status.availableReplicas}", "1"))),
		env.OwnedBy(configuration, "v1", env.Namespace(minimalNS)),
		env.See(check.JSONPathMatches(configuration, "{.metadata.ownerReferences}", "Namespace")),
		// ArgoCD decides what its cascade deletes from its cache: let it see the
		// owner first, as it has long seen Knative's (a deletion in the same
		// second as the patch deleted the configuration on v3.1.4: a race of the
		// fixture, not ArgoCD's behaviour)
		env.Refresh(minimalApp, true),
		env.DeleteApp(minimalApp, env.Background),
		assert.Await(assert.Intervals.Sync, assert.All(check.Missing(deployment), check.Missing(service))),
		env.SeeWithin(assert.Intervals.Hold, check.AppGone(minimalApp)),
		assert.That("unguarded ConfigMap admitted", assert.Intervals.Sync, check.Accepted(unguarded)),
		assert.Symptom(assert.Intervals.Hold,
			assert.Named("configuration left and the guarded ConfigMap rejected", assert.All(check.Exists(configuration), check.Rejected(guarded, `failed calling webhook "`+minimalConfig+`"`)))),
	).Scenario()
}
