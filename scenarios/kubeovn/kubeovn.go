package kubeovn

import (
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
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
func Feature(c matrix.Cell) features.Feature {
	files, name := fixture.ComponentDocument("kube-ovn", c.ComponentVersion, "crds", crd, "crd.yaml"), crd
	if c.Variant.Name == Minimal {
		files, name = fixture.Chart("patch-keys-crd", nil), MinimalCRD
	}
	f := features.New(c.Report().ID()).Setup(env.PushRepo(app, files))
	if c.Variant.Name == "argocd-cm" {
		f = f.Setup(env.SetArgoCDConfig(map[string]string{
			"resource.customizations.ignoreDifferences.apiextensions.k8s.io_CustomResourceDefinition": IgnoreYAML}))
	}
	f = f.Setup(env.CreateApp(Application(c.Variant.Name))).
		Setup(env.Sync(app)).
		Assess("sync Succeeded", assert.That("application "+app+" sync Succeeded", assert.Intervals.Sync,
			check.OperationPhaseIs(app, synccommon.OperationSucceeded))).
		Assess("count patch keys", env.CountInLive(files, "customresourcedefinition", name, "x-kubernetes-patch-"))
	for _, hard := range []bool{false, true} {
		f = f.Assess("refresh", env.Refresh(app, hard))
		if !c.Variant.Mitigation() {
			f = f.Assess("stays OutOfSync", assert.Symptom("application "+app+" OutOfSync", assert.Intervals.HoldShort,
				check.SyncStatusIs(app, v1alpha1.SyncStatusCodeOutOfSync)))
		} else {
			f = f.Assess("Synced", assert.Resolved("application "+app+" Synced", assert.Intervals.Sync, assert.Intervals.HoldShort,
				check.SyncStatusIs(app, v1alpha1.SyncStatusCodeSynced)))
		}
	}
	return f.Feature()
}
