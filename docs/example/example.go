// Package example is the worked example of docs/writing-scenarios.md: a
// whole scenario, the shape of scenarios/kubeovn on the suite's own fixture
// chart. The module builds and tests it like any scenario (its page shows
// this file verbatim, put there by make docs), so the example cannot drift
// from the vocabulary it uses.
//
// The bug: a CRD whose schema carries x-kubernetes-patch-merge-key/-strategy
// (fixtures/charts/patch-keys-crd); the API server drops the keys, so the
// Application stays OutOfSync. Steps: push the chart's files to the
// in-cluster git server, create an Application for them (with the
// variant's mitigation), sync and wait for Succeeded, refresh. Verdict:
// `bug` holds OutOfSync; `ignore-differences` becomes Synced and holds it.
package example

import (
	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

const app = "example"

// Variants are the variants Feature handles: matrix.yaml declares exactly
// these for the scenario (suites.Matrix checks), the mitigation with
// `mitigation: true`.
var Variants = []string{matrix.Bug, "ignore-differences"}

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	values := map[string]any{"name": app}
	if c.Variant.Name == "ignore-differences" {
		// the two keys, wherever they stand in the CRD's schema
		values["ignoreDifferences"] = []map[string]any{{"group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition",
			"jqPathExpressions": []string{
				`.spec.versions[].schema.openAPIV3Schema | .. | select(type == "object" and has("x-kubernetes-patch-strategy")) | ."x-kubernetes-patch-strategy"`,
				`.spec.versions[].schema.openAPIV3Schema | .. | select(type == "object" and has("x-kubernetes-patch-merge-key")) | ."x-kubernetes-patch-merge-key"`,
			}}}
	}
	s := step.New(c.Report().ID()).Add(
		env.PushRepo(app, fixture.Chart("patch-keys-crd", nil)),
		env.CreateApp(fixture.Application(values)),
		env.Sync(app),
		// a precondition: not holding is ERROR (the run failed), not a verdict;
		// the step is named by its check: "application argocd/example operation Succeeded"
		assert.Await(assert.Intervals.Sync, check.OperationPhaseIs(app, synccommon.OperationSucceeded)),
		env.Refresh(app, true))
	if !c.Variant.Mitigation() {
		// the verdicts are named by their checks too: "application
		// argocd/example sync status OutOfSync" (assert.Named adds words where a
		// check cannot say them)
		return s.Add(assert.Symptom(assert.Intervals.HoldShort, check.SyncStatusIs(app, v1alpha1.SyncStatusCodeOutOfSync))).Scenario()
	}
	return s.Add(assert.Resolved(assert.Intervals.Sync, assert.Intervals.HoldShort, check.SyncStatusIs(app, v1alpha1.SyncStatusCodeSynced))).Scenario()
}
