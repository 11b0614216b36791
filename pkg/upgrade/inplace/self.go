package inplace

import (
	"context"
	"fmt"
	"strings"
	"testing"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// selfManaged upgrades ArgoCD as a team whose ArgoCD manages itself: an
// Application of its own (argocd.SelfApp) syncs FROM's install.yaml from
// git first (it takes over the running objects), then TO's, pushed as the
// team bumps the version, with the sync options the team gives. A sync
// that fails is the verdict, BROKEN with what ArgoCD said; one that ends
// leaves the wait for TO's workloads to the rollout look.
func (k *upgrade) selfManaged(from catalog.Release, options []string) []step.Step {
	name, to := argocd.SelfApp, k.to.String()
	return []step.Step{
		env.ProvideArgoCDImages(k.to),
		env.PushRepo(name, env.ArgoCDManifest(from)).As("push argocd " + from.String() + "'s install.yaml to git (ArgoCD managing itself)"),
		env.CreateAppKeepingResources(selfApp(options)),
		env.Sync(name, options...).As("sync application " + name + ": ArgoCD takes over its own objects on " + from.String()),
		step.Look("application "+name+"'s sync on "+from.String()+" ended", func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
			k.selfSynced(ctx, t, "ArgoCD's own Application "+name+" does not sync "+from.String()+"'s install.yaml (already so on "+from.String()+", before the upgrade)", "self-managed-on-from", options)
			return ctx
		}),
		env.PushRepo(name, env.ArgoCDManifest(k.to)).As("push argocd " + to + "'s install.yaml to git: the upgrade"),
		env.ArgoCDUpgradedItself(k.to),
		env.Sync(name, options...).As("sync application " + name + ": the upgrade to " + to),
		step.Look("application "+name+"'s sync to "+to+" ended", func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
			k.selfSynced(ctx, t, "the upgrade to "+to+" failed: ArgoCD's own Application "+name+" did not sync it", "upgrade-refused", options)
			return ctx
		}),
	}
}

// selfApp is ArgoCD's own Application: its install.yaml from the suite's
// git server, into its own namespace, with the team's sync options.
func selfApp(options []string) fixture.App {
	return fixture.App{Name: argocd.SelfApp, Render: func() (*v1alpha1.Application, error) {
		app := &v1alpha1.Application{}
		app.APIVersion, app.Kind = "argoproj.io/v1alpha1", "Application"
		app.Name, app.Namespace = argocd.SelfApp, argocd.Namespace
		app.Labels = map[string]string{"app.kubernetes.io/part-of": "gitops-conformance"}
		app.Spec = v1alpha1.ApplicationSpec{
			Project:     "default",
			Source:      &v1alpha1.ApplicationSource{RepoURL: gitserver.URL(argocd.SelfApp), Path: "."},
			Destination: v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: argocd.Namespace},
		}
		if len(options) > 0 {
			app.Spec.SyncPolicy = &v1alpha1.SyncPolicy{SyncOptions: options}
		}
		return app, nil
	}}
}

// selfSynced waits, up to Intervals.Install, for ArgoCD's own sync to end
// (the controller may restart under it: the operation is in the
// Application and goes on). Failed or Error ends the cell BROKEN, saying
// failed and quoting ArgoCD; still running after the wait, it is left to
// the rollout look to say what keeps ArgoCD from coming up.
func (k *upgrade) selfSynced(ctx context.Context, t *testing.T, failed, evidence string, options []string) {
	t.Helper()
	rec := assert.RecordFrom(ctx)
	if rec.Stopped() {
		return
	}
	_ = env.InRun(func(ctx context.Context) error {
		name := argocd.SelfApp
		if err := assert.Eventually(ctx, "application "+name+"'s sync ended", assert.Intervals.Install, check.OperationEnded(name)); err != nil {
			if assert.IsUnknown(err) {
				rec.Fail(err.Error())
				t.Fatal(err)
			}
			lifecycle.Note(ctx, "application %s's sync still running after %s: %v", name, assert.Intervals.Install, err)
			return nil
		}
		app, err := check.App(ctx, name)
		if err != nil {
			rec.Fail(err.Error())
			t.Fatal(err)
		}
		op := app.Status.OperationState
		lifecycle.Note(ctx, "application %s's sync (options %s): %s", name, text.OrNone(strings.Join(options, ",")), argocd.Describe(app))
		if op.Phase == synccommon.OperationSucceeded {
			return nil
		}
		k.conclude(ctx, evidence, fmt.Sprintf("%s (sync options %s): operation %s: %s%s", failed, text.OrNone(strings.Join(options, ",")),
			op.Phase, text.Clip(op.Message, 400), failedResources(op)))
		return nil
	})(ctx)
}

// failedResources quotes the resources an operation could not sync, but
// for what its message quotes already.
func failedResources(op *v1alpha1.OperationState) string {
	if op.SyncResult == nil {
		return ""
	}
	var out []string
	for _, r := range op.SyncResult.Resources {
		if r.Status == synccommon.ResultCodeSyncFailed && !strings.Contains(op.Message, r.Message) {
			out = append(out, fmt.Sprintf("%s %s: %s", r.Kind, r.Name, text.Clip(r.Message, 300)))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "; failed: " + strings.Join(out, "; ")
}
