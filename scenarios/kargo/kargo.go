// Package kargo reproduces kargo-argocd: a Kargo Project adopts a pre-created
// namespace (label kargo.akuity.io/project: "true") and deleting the Project
// deletes the namespace with everything in it. The annotation
// kargo.akuity.io/keep-namespace: "true" on the Project or the Namespace is
// meant to keep it; akuity/kargo#4627 reports it failing under foreground
// deletion, which is how ArgoCD prunes (fixed by akuity/kargo#5763).
// Upstream: https://github.com/akuity/kargo/issues/4202 (the request), #4229 (the annotation).
//
// How a Project holds its namespace changed across releases (read in Kargo's
// history): up to v1.9.5 the adopted namespace gets an ownerReference to the
// Project and Kargo's finalizer; from v1.9.6 and v1.10.0-rc.2 only the
// finalizer, and Kargo deletes the namespace itself. Adoption is therefore
// recognised by the finalizer; the ownerReferences are recorded.
//
// Steps: install cert-manager and Kargo (OCI chart, Helm SDK, admin
// credentials generated per run); create the team namespace with a Secret and
// a ConfigMap, then a Project of the same name; wait until the Project owns
// the namespace; delete the Project the variant's way (kubectl's default
// background propagation, or foreground as ArgoCD's prune does). Verdict:
// `bug` sees the namespace deleted; keep-namespace variants see the Project
// gone and the namespace with its contents kept.
//
// Online only: Kargo's sources and images are not obtainable offline.
package kargo

import (
	"context"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) features.Feature {
	v := VariantOf(c.Variant.Name)
	src, err := sources()
	if err != nil { // the cell ends ERROR saying so; no panic at package init
		return features.New(c.Report().ID()).Setup(assert.Step("read the catalog", func(context.Context) error { return err })).Feature()
	}
	f := features.New(c.Report().ID()).
		Setup(env.ApplyURL("cert-manager", src.CertManagerURL)).
		Setup(assert.That("cert-manager rolled out", assert.Intervals.Install, check.RolledOut("cert-manager"))).
		Setup(env.HelmInstall(Release(src.Chart, c.ComponentVersion), AdminValues)).
		Setup(env.Apply("team namespace and its contents", TeamNamespace(v.OnNamespace))).
		Setup(env.Apply("project", Project(v.OnProject))).
		Assess("project adopted the namespace", assert.That("namespace "+Team+" adopted (Kargo's finalizer)", assert.Intervals.Sync,
			check.JSONPathMatches("namespace", "", Team, "{.metadata.finalizers}", Finalizer))).
		Assess("ownerReferences", env.Observe("ownerReferences of namespace "+Team,
			check.JSONPathMatches("namespace", "", Team, "{.metadata.ownerReferences}", "Project"))).
		Assess("delete the project", env.Delete("projects.kargo.akuity.io", "", Team, v.DeleteArgs...))
	if c.Variant.Name == "bug" {
		return f.Assess("namespace deleted", assert.Occurs("namespace "+Team+" deleted", assert.Intervals.Sync,
			check.Missing("namespace", "", Team))).Feature()
	}
	return f.Assess("project gone", assert.That("project "+Team+" gone", assert.Intervals.Sync, check.Missing("projects.kargo.akuity.io", "", Team))).
		Assess("namespace kept", assert.Resolved("namespace "+Team+" and its ConfigMap kept", assert.Intervals.Sync, assert.Intervals.Hold,
			assert.All(check.JSONPathIs("namespace", "", Team, "{.status.phase}", "Active"), check.Exists("configmap", Team, "team-settings")))).
		Feature()
}

func sources() (Sources, error) {
	cat, err := catalog.Load()
	if err != nil {
		return Sources{}, err
	}
	return SourcesOf(cat)
}
