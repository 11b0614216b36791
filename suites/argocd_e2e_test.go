//go:build e2e

package suites

import (
	"testing"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/step"
)

const fixtureApp = "fixture"

// fixtureFiles is a one-ConfigMap repository: the smallest Application that syncs.
func fixtureFiles(message string) fixture.Files {
	return fixture.Chart("probes", map[string]any{"configMap": map[string]any{
		"name": "fixture", "namespace": "default", "data": map[string]string{"message": message}}})
}

func fixtureApplication() fixture.App { return fixture.Application(map[string]any{"name": fixtureApp}) }

// syncs pushes a commit, syncs, and expects Synced/Healthy with the commit's content.
func syncs(message string) []step.Step {
	return []step.Step{env.PushRepo(fixtureApp, fixtureFiles(message)).As("push " + message), env.Sync(fixtureApp).As("sync " + message),
		assert.That("application fixture sync Succeeded ("+message+")", assert.Intervals.Sync,
			check.OperationPhaseIs(fixtureApp, synccommon.OperationSucceeded)),
		assert.That("application fixture Synced and Healthy ("+message+")", assert.Intervals.Sync,
			assert.All(check.SyncStatusIs(fixtureApp, v1alpha1.SyncStatusCodeSynced), check.HealthIs(fixtureApp, "Healthy"))),
		assert.That("configmap default/fixture has "+message, assert.Intervals.Sync,
			check.JSONPathIs(env.ConfigMap("default", "fixture"), "{.data.message}", message))}
}

// TestArgoCD installs each release of the ArgoCD axis (ARGOCD=..., default
// the catalog's), syncs a fixture Application from the in-cluster git server
// on each, then upgrades the oldest in place to the newest and syncs again.
// Each install verifies the running version. Run it with make argocd-check.
func TestArgoCD(t *testing.T) {
	rels := run.ArgoCD
	for _, rel := range rels {
		tag := rel.String()
		runCheck(t, "argocd-"+tag, step.New("argocd "+tag).Add(env.InstallArgoCDRelease(rel), env.CreateApp(fixtureApplication())).
			Add(syncs("installed-"+tag)...).Scenario())
	}
	if len(rels) < 2 {
		return
	}
	oldest, newest := rels[0], rels[len(rels)-1]
	runCheck(t, "argocd-upgrade", step.New("argocd upgrade "+oldest.String()+" to "+newest.String()).
		Add(env.InstallArgoCDRelease(oldest), env.CreateApp(fixtureApplication())).Add(syncs("before-upgrade")...).
		Add(env.UpgradeArgoCD(newest)).Add(syncs("after-upgrade")...).Scenario())
}

// runCheck runs steps that are not a matrix cell and fails t if their cleanup fails.
func runCheck(t *testing.T, name string, sc step.Scenario) {
	if err := run.Check(runCtx, name, sc, exec(t)); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}
