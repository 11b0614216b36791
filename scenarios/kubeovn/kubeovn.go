// Package kubeovn reproduces kubeovn-argocd: Kube-OVN's vpc-nat-gateways CRD
// carries x-kubernetes-patch-merge-key/-strategy in its affinity schema; the
// API server drops them, so ArgoCD's desired CRD never equals the live one.
// Upstream: https://github.com/kubeovn/kube-ovn/issues?q=vpc-nat-gateways+OutOfSync+argocd
//
// Steps: push the release's vpc-nat-gateways.kubeovn.io CRD to the in-cluster
// git server; create an Application for it (with the variant's mitigation);
// sync and wait for Succeeded; count the keys in the desired and the live CRD;
// refresh, hard-refresh. Verdict: `bug` holds OutOfSync throughout; a
// mitigation becomes Synced and holds it across both refreshes.
package kubeovn

import (
	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
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
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) features.Feature {
	files := fixture.ComponentDocument("kube-ovn", c.ComponentVersion, "crds", crd, "crd.yaml")
	f := features.New(c.Report().ID()).Setup(env.PushRepo(app, files))
	if c.Variant.Name == "argocd-cm" {
		f = f.Setup(env.SetArgoCDConfig(map[string]string{
			"resource.customizations.ignoreDifferences.apiextensions.k8s.io_CustomResourceDefinition": IgnoreYAML}))
	}
	f = f.Setup(env.CreateApp(Application(c.Variant.Name))).
		Setup(env.Sync(app)).
		Assess("sync Succeeded", assert.That("application "+app+" sync Succeeded", assert.Intervals.Sync,
			check.OperationPhaseIs(app, synccommon.OperationSucceeded))).
		Assess("count patch keys", env.CountInLive(files, "customresourcedefinition", crd, "x-kubernetes-patch-"))
	for _, hard := range []bool{false, true} {
		f = f.Assess("refresh", env.Refresh(app, hard))
		if c.Variant.Name == "bug" {
			f = f.Assess("stays OutOfSync", assert.Symptom("application "+app+" OutOfSync", assert.Intervals.HoldShort,
				check.SyncStatusIs(app, v1alpha1.SyncStatusCodeOutOfSync)))
		} else {
			f = f.Assess("Synced", assert.Resolved("application "+app+" Synced", assert.Intervals.Sync, assert.Intervals.HoldShort,
				check.SyncStatusIs(app, v1alpha1.SyncStatusCodeSynced)))
		}
	}
	return f.Feature()
}
