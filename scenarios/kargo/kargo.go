package kargo

import (
	"fmt"
	"strings"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

const projects = "projects.kargo.akuity.io"

var (
	project    = env.Custom(projects, "Project", "", Team)
	team       = env.Namespace(Team)
	settings   = env.ConfigMap(Team, "team-settings")
	credential = env.Secret(Team, "team-credentials")
	finalizers = check.Field{Of: project, Path: "{.metadata.finalizers}"}
	deleting   = check.JSONPathMatches(project, "{.metadata.deletionTimestamp}", ".")
	// the deletion's two ends: the namespace gone, or kept with its contents
	gone = check.Missing(team)
	kept = assert.All(check.Missing(project), check.JSONPathIs(team, "{.status.phase}", "Active"), check.Exists(settings), check.Exists(credential))
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	s := step.New(c.Report().ID())
	v, known := VariantOf(c.Variant.Name)
	if !known { // suites.Matrix refuses such a matrix first; the cell ends ERROR saying so
		return s.Add(env.Fail("variant "+c.Variant.Name, fmt.Errorf("kargo-argocd has no variant %q (valid: %s)", c.Variant.Name, strings.Join(Variants, ", ")))).Scenario()
	}
	src, err := sources()
	if err != nil { // the cell ends ERROR saying so; no panic at package init
		return s.Add(env.Fail("read the catalog", err)).Scenario()
	}
	s.Add(install(c.ComponentVersion, src), env.WatchLog(env.Deployment(Namespace, Controller)),
		env.Timeline("team", team, project, settings, credential), env.Watch(team), env.Watch(project),
		env.ApplyFiles("team namespace and its contents", TeamNamespace(v)))
	if v.ViaArgoCD() {
		s.Add(env.PushRepo(Team, Repository(v, true)), env.CreateApp(Application()), env.Sync(Team),
			assert.Await(assert.Intervals.Sync, assert.All(check.OperationPhaseIs(Team, synccommon.OperationSucceeded), check.SyncStatusIs(Team, v1alpha1.SyncStatusCodeSynced))))
	} else {
		s.Add(env.ApplyFiles("project", Project(v)))
	}
	s.Add(assert.That("namespace "+Team+" adopted (Kargo's finalizer)", assert.Intervals.Sync, check.JSONPathMatches(team, "{.metadata.finalizers}", Finalizer)),
		env.See(check.JSONPathMatches(team, "{.metadata.ownerReferences}", "Project")),
		env.Snapshot("before-deletion"))
	s.Add(deletion(v)...)
	// the deletion settles one way or the other before the verdict looks
	s.Add(assert.That("the deletion settled: namespace "+Team+" gone, or the project gone and the namespace Active with its contents",
		assert.Intervals.Sync, assert.Any(gone, kept)))
	if c.Variant.Name == matrix.Bug {
		s.Add(assert.Occurs(assert.Intervals.HoldShort, gone))
	} else {
		s.Add(assert.Resolved(assert.Intervals.HoldShort, assert.Intervals.Hold, assert.Named("project "+Team+" gone, namespace "+Team+" Active with its ConfigMap and Secret", kept)))
	}
	return s.Add(env.Observe("the project's deletion in the timeline", check.TimelineShows("team", project, `deletionTimestamp=`)),
		env.Observe("the project was deleted in the foreground (the API server's foregroundDeletion finalizer on it)",
			check.TimelineShows("team", project, `deletionTimestamp=.*finalizers=\[[^\]]*foregroundDeletion`)),
		env.See(check.Missing(project))).Scenario()
}

// install installs Kargo at tag: offline from the source tree the user
// provides (its images built from it, the webhook's certificate made here),
// online from its published chart behind cert-manager.
func install(tag string, src Sources) step.Step {
	tree := fixture.UserTree(SourcesEnv, "kargo", tag, "charts/kargo/Chart.yaml")
	chart := fixture.TreeDir(tree, "charts/kargo")
	tls := WebhookTLS()
	// Kargo finalizes its controller's ServiceAccount, and helm uninstall takes
	// the management controller that would release it with it (the uninstall
	// then waits on it): at the end it goes first, while Kargo runs
	releaseControllerSA := env.DeleteObjectAtEnd(env.ServiceAccount(Namespace, "kargo-controller"),
		"Kargo's finalizer on it is released by the management controller, which helm uninstall takes with it")
	return env.ByMode(env.InOrder("install Kargo "+tag+" from its source tree",
		env.Provided("Kargo "+tag+" source tree", chart),
		env.TreeImages("kargo", tag, tree),
		env.ApplyNamespace(Namespace),
		env.ApplySecret("the webhook server's certificate "+Namespace+"/"+webhookSecret, tls.Secret()),
		env.HelmInstallChartWith(OfflineRelease(), chart, OfflineValues(tag, tls)),
		releaseControllerSA,
		env.InjectCABundle(Namespace, tls.CABundle)),
		env.InOrder("install Kargo "+tag+" from its chart",
			env.ApplyURL("cert-manager", src.CertManagerURL),
			assert.Await(assert.Intervals.Install, check.RolledOut("cert-manager")),
			env.HelmInstall(Release(src.Chart, tag), AdminValues),
			releaseControllerSA))
}

// deletion deletes the Project as the variant does: by ArgoCD's prune or
// cascade, or by kubectl with the variant's actor held back: stopped before
// the deletion, started again once the other actor has finished with the
// Project, which its finalizers tell (a precondition of the staging, not the
// verdict: the verdict still waits for the deletion to settle).
func deletion(v Variant) []step.Step {
	switch v.By {
	case ByArgoCDPrune:
		return []step.Step{env.PushRepo(Team, Repository(v, false)).As("remove the project from git"), env.Sync(Team).As("sync with prune")}
	case ByArgoCDCascade:
		return []step.Step{env.DeleteApp(Team, env.Foreground)}
	}
	del := env.Delete(project, v.DeleteArgs...)
	switch v.Held {
	case HeldKargo:
		return []step.Step{env.StopWorkload(env.Deployment(Namespace, controller), env.Selection{Kinds: "pods", Namespace: Namespace, Labels: ControllerPods}), del,
			assert.That("the garbage collector finished with project "+Team+" (only Kargo's finalizer left on it)", assert.Intervals.Sync,
				assert.All(deleting, finalizers.Is(`["`+Finalizer+`"]`))),
			env.Observe("namespace "+Team+" being deleted before Kargo came back", check.JSONPathMatches(team, "{.metadata.deletionTimestamp}", ".")),
			env.StartWorkload(env.Deployment(Namespace, controller))}
	case HeldGC:
		return []step.Step{env.StopControlPlane(GarbageCollector), del,
			assert.That("Kargo finished with project "+Team+" (only foregroundDeletion left on it)", assert.Intervals.Sync,
				assert.All(deleting, finalizers.Is(`["foregroundDeletion"]`))),
			env.Observe("namespace "+Team+" has no ownerReference before the garbage collector came back", check.JSONPathIs(team, "{.metadata.ownerReferences}", "")),
			env.StartControlPlane(GarbageCollector)}
	}
	return []step.Step{del}
}

func sources() (Sources, error) {
	cat, err := env.LoadCatalog()
	if err != nil {
		return Sources{}, err
	}
	return SourcesOf(cat)
}
