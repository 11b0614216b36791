package longname

import (
	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/scenarios/internal/kruise"
)

// The Application names: Long as an ApplicationSet generates them (66
// characters), Short at the limit (63).
const (
	Long  = "gitops-conformance-applicationset-generated-kruise-cluster-east-01"
	Short = "gitops-conformance-appset-generated-kruise-cluster-east-1-sixty"
	// Minimal is the variant that reproduces the ArgoCD side without kruise.
	Minimal = matrix.Minimal

	limit = "must be no more than 63 characters"
)

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{matrix.Bug, "annotation-tracking", "short-name", Upgrade, Minimal, LabelTracking}

// LabelTracking is the fix of argo-cd#27542 (v3.4.3) under label-only
// tracking: it truncates the label only beside the annotation; label-only
// tracking keeps the whole name as the label (v3.6.1
// util/argo/resource_tracking.go:171-179, "let Kubernetes surface the
// validation error"), so the sync itself is refused, not only the deletion
// hooks: NOT_MITIGATED, saying so.
const LabelTracking = "label-tracking"

// Upgrade is the mitigation by an in-place upgrade of ArgoCD past the fix,
// with the Application already stuck: released or not.
const Upgrade = "argocd-upgrade"

// A variant: the Application's name, the tracking method in argocd-cm, and
// whether it installs the kruise chart or the fixture.
type variant struct {
	name, tracking string
	kruise         bool
}

var variants = map[string]variant{
	matrix.Bug:            {Long, "annotation+label", true},
	"annotation-tracking": {Long, "annotation", true},
	"short-name":          {Short, "annotation+label", true},
	Upgrade:               {Long, "annotation+label", true},
	Minimal:               {Long, "annotation+label", false},
	LabelTracking:         {Long, "label", true},
}

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	v := variants[c.Variant.Name]
	if c.Variant.Name == LabelTracking {
		return labelOnly(c, v)
	}
	app := env.Application(v.name)
	deletionError := check.DeletionErrorMatches(v.name, limit)
	s := step.New(c.Report().ID()).Add(install(c, v)...).Add(
		env.SetArgoCDConfig(map[string]string{"application.resourceTrackingMethod": v.tracking}),
		env.CreateApp(application(c, v)), env.Sync(v.name),
		assert.Await(assert.Intervals.Install, assert.All(check.OperationPhaseIs(v.name, synccommon.OperationSucceeded), check.HealthIs(v.name, "Healthy"))),
		env.Observe("the Application's finalizers (ArgoCD's for its deletion hooks)", check.JSONPathMatches(app, "{.metadata.finalizers}", "delete-finalizer")),
		env.DeleteApp(v.name, env.Foreground),
		env.ReleaseDeletionHooksAtEnd(v.name),
		assert.That("the deletion settled: application "+v.name+" gone, or a DeletionError naming the 63-character limit",
			assert.Intervals.Install, assert.Any(check.AppGone(v.name), deletionError)),
		env.See(check.EventMatches(app, "StatusRefreshed", "delete")),
		env.Snapshot("at-verdict"))
	stuck := assert.All(check.JSONPathMatches(app, "{.metadata.deletionTimestamp}", "."), deletionError)
	if !c.Variant.Mitigation() {
		return s.Add(assert.Symptom(assert.Intervals.Hold, assert.Named("application "+v.name+" stays Terminating: its deletion hook refused ("+limit+")", stuck))).Scenario()
	}
	if c.Variant.Name == Upgrade {
		// stuck first, as the bug leaves it; then ArgoCD upgraded under it
		s.Add(assert.Holds("application "+v.name+" stays Terminating: its deletion hook refused", assert.Intervals.HoldShort, stuck))
		for _, to := range c.Upgrades {
			s.Add(env.UpgradeArgoCD(to))
		}
	}
	return s.Add(assert.Resolved(assert.Intervals.Sync, assert.Intervals.HoldShort, check.AppGone(v.name))).Scenario()
}

// labelOnly is the label-tracking cell: the Application created and synced
// under label-only tracking; mitigated when the sync succeeds and stays so,
// not when it ends Failed or Error (its message names the 63-character limit).
func labelOnly(c matrix.Cell, v variant) step.Scenario {
	ended := check.OperationEnded(v.name)
	return step.New(c.Report().ID()).Add(install(c, v)...).Add(
		env.SetArgoCDConfig(map[string]string{"application.resourceTrackingMethod": v.tracking}),
		env.CreateApp(application(c, v)), env.Sync(v.name),
		env.ReleaseDeletionHooksAtEnd(v.name),
		assert.That("the sync ended", assert.Intervals.Install, ended),
		env.See(check.OperationMessageContains(v.name, limit)),
		env.Snapshot("at-verdict"),
		assert.Resolved(assert.Intervals.Sync, assert.Intervals.HoldShort,
			assert.Named("application "+v.name+" synced under label-only tracking", check.OperationPhaseIs(v.name, synccommon.OperationSucceeded)))).Scenario()
}

// install makes the destination namespace and provides what the Application
// installs: the kruise chart (its images built offline, the hook's with
// them; the namespace labelled as its webhooks need), or the fixture chart.
func install(c matrix.Cell, v variant) []step.Step {
	if !v.kruise {
		return []step.Step{env.ApplyNamespace("gitops-conformance-hooks"),
			env.PushRepo(v.name, fixture.Chart("deletion-hook", map[string]any{"image": c.ArgoCD.Image()}))}
	}
	return kruise.ThroughArgoCD(c.ComponentVersion, v.name)
}

// application is the Application of the variant's name: the kruise chart as
// release kruise (the write-up's values), or the fixture, manual syncs.
func application(c matrix.Cell, v variant) fixture.App {
	if !v.kruise {
		return fixture.Application(map[string]any{"name": v.name, "namespace": "gitops-conformance-hooks"})
	}
	return kruise.Application(v.name)
}
