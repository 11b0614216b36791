//go:build e2e

package suites

import (
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
)

const fixtureApp = "fixture"

// fixtureFiles is a one-ConfigMap repository: the smallest Application that syncs.
func fixtureFiles(message string) fixture.Files {
	return fixture.Chart("probes", map[string]any{"configMap": map[string]any{
		"name": "fixture", "namespace": "default", "data": map[string]string{"message": message}}})
}

func fixtureApplication() fixture.App { return fixture.Application(map[string]any{"name": fixtureApp}) }

// syncs pushes a commit, syncs, and expects Synced/Healthy with the commit's content.
func syncs(f *features.FeatureBuilder, message string) *features.FeatureBuilder {
	return f.Assess("push "+message, env.PushRepo(fixtureApp, fixtureFiles(message))).
		Assess("sync "+message, env.Sync(fixtureApp)).
		Assess("Succeeded "+message, assert.That("application fixture sync Succeeded", assert.Intervals.Sync,
			check.OperationPhaseIs(fixtureApp, synccommon.OperationSucceeded))).
		Assess("Synced "+message, assert.That("application fixture Synced and Healthy", assert.Intervals.Sync,
			assert.All(check.SyncStatusIs(fixtureApp, v1alpha1.SyncStatusCodeSynced), check.HealthIs(fixtureApp, "Healthy")))).
		Assess("content "+message, assert.That("configmap default/fixture has "+message, assert.Intervals.Sync,
			check.JSONPathIs("configmap", "default", "fixture", "{.data.message}", message)))
}

// TestArgoCD installs each release of the ArgoCD axis (ARGOCD=..., default
// the catalog's), syncs a fixture Application from the in-cluster git server
// on each, then upgrades the oldest in place to the newest and syncs again.
// Each install verifies the running version. Run it with make argocd-check.
func TestArgoCD(t *testing.T) {
	rels := run.ArgoCD
	for _, rel := range rels {
		tag := rel.String()
		f := features.New("argocd " + tag).
			Setup(env.InstallArgoCDRelease(rel)).
			Setup(env.CreateApp(fixtureApplication()))
		runCheck(t, "argocd-"+tag, syncs(f, "installed-"+tag).Feature())
	}
	if len(rels) < 2 {
		return
	}
	oldest, newest := rels[0], rels[len(rels)-1]
	f := features.New("argocd upgrade " + oldest.String() + " to " + newest.String()).
		Setup(env.InstallArgoCDRelease(oldest)).
		Setup(env.CreateApp(fixtureApplication()))
	f = syncs(f, "before-upgrade").Assess("upgrade in place", env.UpgradeArgoCD(newest))
	runCheck(t, "argocd-upgrade", syncs(f, "after-upgrade").Feature())
}

// runCheck runs a feature that is not a matrix cell and fails t if its cleanup fails.
func runCheck(t *testing.T, name string, f features.Feature) {
	if err := run.Check(runCtx, name, f, exec(t)); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}
