package kargo

import (
	"context"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

const projects = "projects.kargo.akuity.io"

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) features.Feature {
	v, known := VariantOf(c.Variant.Name)
	if !known { // suites.Matrix refuses such a matrix first; the cell ends ERROR saying so
		return features.New(c.Report().ID()).Setup(assert.Step("variant "+c.Variant.Name, func(context.Context) error {
			return fmt.Errorf("kargo-argocd has no variant %q (valid: %s)", c.Variant.Name, strings.Join(Variants, ", "))
		})).Feature()
	}
	tag := c.ComponentVersion
	src, err := sources()
	if err != nil { // the cell ends ERROR saying so; no panic at package init
		return features.New(c.Report().ID()).Setup(assert.Step("read the catalog", func(context.Context) error { return err })).Feature()
	}
	tree := fixture.UserTree(SourcesEnv, "kargo", tag, "charts/kargo/Chart.yaml")
	chart := fixture.TreeDir(tree, "charts/kargo")
	tls := WebhookTLS()
	project := env.Object{Kind: projects, Name: Team}
	// Kargo finalizes its controller's ServiceAccount, and helm uninstall takes
	// the management controller that would release it with it (the uninstall
	// then waits on it): at the end it goes first, while Kargo runs
	releaseControllerSA := env.DeleteObjectAtEnd("serviceaccount", Namespace, "kargo-controller",
		"Kargo's finalizer on it is released by the management controller, which helm uninstall takes with it")
	offline := env.InOrder(
		env.Provided("Kargo "+tag+" source tree", chart),
		env.TreeImages("kargo", tag, tree),
		env.ApplyFiles("namespace "+Namespace, fixture.Chart("probes", map[string]any{"namespace": map[string]any{"name": Namespace}})),
		env.ApplySecret("the webhook server's certificate "+Namespace+"/"+webhookSecret, tls.Secret()),
		env.HelmInstallChartWith(OfflineRelease(), chart, OfflineValues(tag, tls)),
		releaseControllerSA,
		env.InjectCABundle(Namespace, tls.CABundle))
	online := env.InOrder(
		env.ApplyURL("cert-manager", src.CertManagerURL),
		assert.That("cert-manager rolled out", assert.Intervals.Install, check.RolledOut("cert-manager")),
		env.HelmInstall(Release(src.Chart, tag), AdminValues),
		releaseControllerSA)

	f := features.New(c.Report().ID()).
		Setup(env.ByMode(offline, online)).
		Setup(env.WatchLog(Namespace, Controller)).
		Setup(env.Timeline("team", env.Object{Kind: "namespace", Name: Team}, project,
			env.Object{Kind: "configmap", Namespace: Team, Name: "team-settings"}, env.Object{Kind: "secret", Namespace: Team, Name: "team-credentials"})).
		Setup(env.Watch("namespace", "", Team)).
		Setup(env.Watch(projects, "", Team)).
		Setup(env.ApplyFiles("team namespace and its contents", TeamNamespace(v)))
	if v.ViaArgoCD() {
		f = f.Setup(env.PushRepo(Team, Repository(v, true))).
			Setup(env.CreateApp(Application())).
			Setup(env.Sync(Team)).
			Setup(assert.That("application "+Team+" synced the project", assert.Intervals.Sync,
				assert.All(check.OperationPhaseIs(Team, synccommon.OperationSucceeded), check.SyncStatusIs(Team, v1alpha1.SyncStatusCodeSynced))))
	} else {
		f = f.Setup(env.ApplyFiles("project", Project(v)))
	}
	f = f.Assess("project adopted the namespace", assert.That("namespace "+Team+" adopted (Kargo's finalizer)", assert.Intervals.Sync,
		check.JSONPathMatches("namespace", "", Team, "{.metadata.finalizers}", Finalizer))).
		Assess("ownerReferences", env.Observe("namespace "+Team+" has an ownerReference to the Project",
			check.JSONPathMatches("namespace", "", Team, "{.metadata.ownerReferences}", "Project"))).
		Assess("evidence before the deletion", env.Snapshot("before-deletion"))
	switch v.By {
	case ByArgoCDPrune:
		f = f.Assess("remove the project from git", env.PushRepo(Team, Repository(v, false))).
			Assess("sync with prune", env.Sync(Team))
	case ByArgoCDCascade:
		f = f.Assess("delete the application", env.DeleteApp(Team, env.Foreground))
	case ByKubectl:
		f = held(f, v, env.Delete(projects, "", Team, v.DeleteArgs...))
	}
	deletedForeground := check.TimelineShows("team", project, `deletionTimestamp=.*finalizers=\[[^\]]*foregroundDeletion`)
	deleting := check.TimelineShows("team", project, `deletionTimestamp=`)
	kept := assert.All(check.Missing(projects, "", Team), check.JSONPathIs("namespace", "", Team, "{.status.phase}", "Active"),
		check.Exists("configmap", Team, "team-settings"), check.Exists("secret", Team, "team-credentials"))
	// the deletion settles one way or the other before the verdict looks
	gone := check.Missing("namespace", "", Team)
	f = f.Assess("deletion settled", assert.That("the deletion settled: namespace "+Team+" gone, or the project gone and the namespace Active with its contents",
		assert.Intervals.Sync, assert.Any(gone, kept)))
	if c.Variant.Name == matrix.Bug {
		f = f.Assess("namespace deleted", assert.Occurs("namespace "+Team+" deleted", assert.Intervals.HoldShort, gone))
	} else {
		f = f.Assess("namespace kept", assert.Resolved("project "+Team+" gone, namespace "+Team+" Active with its ConfigMap and Secret",
			assert.Intervals.HoldShort, assert.Intervals.Hold, kept))
	}
	return f.Assess("deletion seen", env.Observe("the project's deletion in the timeline", deleting)).
		Assess("propagation", env.Observe("the project was deleted in the foreground (the API server's foregroundDeletion finalizer on it)", deletedForeground)).
		Assess("project gone", env.Observe("project "+Team+" gone", check.Missing(projects, "", Team))).
		Feature()
}

// held deletes the Project with the variant's actor held back: stopped
// before the deletion, started again once the other actor has finished with
// the Project, which its finalizers tell (a precondition of the staging, not
// the verdict: the verdict still waits for the deletion to settle).
func held(f *features.FeatureBuilder, v Variant, del features.Func) *features.FeatureBuilder {
	deleting := check.JSONPathMatches(projects, "", Team, "{.metadata.deletionTimestamp}", ".")
	switch v.Held {
	case HeldKargo:
		return f.Assess("stop kargo", env.StopWorkload(Namespace, controller, ControllerPods)).
			Assess("delete the project", del).
			Assess("collector done", assert.That("the garbage collector finished with project "+Team+" (only Kargo's finalizer left on it)", assert.Intervals.Sync,
				assert.All(deleting, check.JSONPathIs(projects, "", Team, "{.metadata.finalizers}", `["`+Finalizer+`"]`)))).
			Assess("namespace before kargo", env.Observe("namespace "+Team+" being deleted before Kargo came back",
				check.JSONPathMatches("namespace", "", Team, "{.metadata.deletionTimestamp}", "."))).
			Assess("start kargo", env.StartWorkload(Namespace, controller))
	case HeldGC:
		return f.Assess("stop the garbage collector", env.StopControlPlane(GarbageCollector)).
			Assess("delete the project", del).
			Assess("kargo done", assert.That("Kargo finished with project "+Team+" (only foregroundDeletion left on it)", assert.Intervals.Sync,
				assert.All(deleting, check.JSONPathIs(projects, "", Team, "{.metadata.finalizers}", `["foregroundDeletion"]`)))).
			Assess("namespace before the collector", env.Observe("namespace "+Team+" has no ownerReference before the garbage collector came back",
				check.JSONPathIs("namespace", "", Team, "{.metadata.ownerReferences}", ""))).
			Assess("start the garbage collector", env.StartControlPlane(GarbageCollector))
	}
	return f.Assess("delete the project", del)
}

func sources() (Sources, error) {
	cat, err := catalog.Load()
	if err != nil {
		return Sources{}, err
	}
	return SourcesOf(cat)
}
