package kubeovn

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

const (
	app = "kube-ovn-crd"
	crd = "vpc-nat-gateways.kubeovn.io"
	// Minimal is the variant that reproduces the ArgoCD side without Kube-OVN:
	// MinimalCRD (fixtures/charts/patch-keys-crd) carries the same keys.
	Minimal    = matrix.Minimal
	MinimalCRD = "widgets.conformance.gitops.io"
)

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these): the mitigations differ only in the
// Application (Application), argocd-cm (SetArgoCDConfig) and the component
// version matrix.yaml gives crd-upgrade.
var Variants = []string{matrix.Bug, "ignore-differences", "argocd-cm", "crd-upgrade", "server-side-diff", Minimal}

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	files, name := fixture.ComponentDocument("kube-ovn", c.ComponentVersion, "crds", crd, "crd.yaml"), crd
	if c.Variant.Name == Minimal {
		files, name = fixture.Chart("patch-keys-crd", nil), MinimalCRD
	}
	s := step.New(c.Report().ID()).Add(env.PushRepo(app, files))
	if c.Variant.Name == "argocd-cm" {
		s.Add(env.SetArgoCDConfig(map[string]string{
			"resource.customizations.ignoreDifferences.apiextensions.k8s.io_CustomResourceDefinition": IgnoreYAML}))
	}
	s.Add(env.CreateApp(Application(c.Variant.Name)), env.Sync(app),
		assert.Await(assert.Intervals.Sync, check.OperationPhaseIs(app, synccommon.OperationSucceeded)),
		env.CountInLive(files, env.CRD(name), "x-kubernetes-patch-"))
	for _, hard := range []bool{false, true} {
		s.Add(env.Refresh(app, hard), verdict(c.Variant.Mitigation(), map[bool]string{false: "after a refresh", true: "after a hard refresh"}[hard]))
	}
	return s.Scenario()
}

// verdict is the variant's verdict after a refresh: `bug` holds OutOfSync, a
// mitigation comes to Synced and holds it.
func verdict(mitigation bool, after string) step.Step {
	if !mitigation {
		return assert.Symptom(assert.Intervals.HoldShort,
			assert.Named("application "+app+" OutOfSync "+after, check.SyncStatusIs(app, v1alpha1.SyncStatusCodeOutOfSync)))
	}
	return assert.Resolved(assert.Intervals.Sync, assert.Intervals.HoldShort,
		assert.Named("application "+app+" Synced "+after, check.SyncStatusIs(app, v1alpha1.SyncStatusCodeSynced)))
}
