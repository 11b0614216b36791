package env

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/step"
)

// PushRepo commits files to a fixture repository on the in-cluster git server.
func PushRepo(repo string, files fixture.Files) step.Step {
	return PushRepoInto(repo, files, nil)
}

// PushRepoInto is PushRepo that also keeps the commit pushed in dst (when
// not nil), for a check that ArgoCD compared that commit. dst stays empty in
// a plan.
func PushRepoInto(repo string, files fixture.Files, dst *string) step.Step {
	return act("push repository "+repo, func(ctx context.Context) error {
		f, err := files(ctx)
		if err != nil {
			return err
		}
		dir := repro.Dir(ctx, "repos/"+repo)
		bundled := map[string]string{}
		for p, content := range f {
			bundled[dir+"/"+p] = content
		}
		if !do(ctx, "push repository "+repo, "push "+repro.Quote(repo)+" "+repro.Quote(dir), bundled) {
			return nil
		}
		commit, err := lifecycle.From(ctx).Git.Push(ctx, repo, "gitops-conformance fixture", f)
		if err != nil {
			return err
		}
		lifecycle.Note(ctx, "pushed %d file(s) to %s at %s", len(f), gitserver.URL(repo), argocd.Short(commit))
		if dst != nil {
			*dst = commit
		}
		return nil
	})
}

// CreateApp creates an Application; the cell deletes it (cascading) at its end.
func CreateApp(fix fixture.App) step.Step { return createApp(fix, argocd.Foreground) }

// CreateAppKeepingResources creates an Application the cell deletes at its
// end without its resources (non-cascading): one that manages what must
// outlive it, as ArgoCD's own.
func CreateAppKeepingResources(fix fixture.App) step.Step { return createApp(fix, argocd.NonCascade) }

func createApp(fix fixture.App, atEnd argocd.Deletion) step.Step {
	return act("create application "+argocd.Namespace+"/"+fix.Name, func(ctx context.Context) error {
		app, err := fix.Render()
		if err != nil {
			return err
		}
		if !applyStep(ctx, "application "+app.Name, applicationManifest(app)) {
			return nil
		}
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Watch("applications.argoproj.io", argocd.Namespace, app.Name)
		deleteAtEnd(ctx, app.Name, atEnd, assert.Intervals.Sync)
		spec, _ := json.Marshal(app.Spec)
		c.Step("create application %s: %s", app.Name, spec)
		if h := app.Spec.GetSource().Helm; h != nil && h.Values != "" {
			// a report says which chart values a cell chose (what it switches off)
			values, err := yaml.YAMLToJSON([]byte(h.Values))
			if err != nil {
				return fmt.Errorf("application %s: Helm values: %w", app.Name, err)
			}
			lifecycle.Note(ctx, "application %s: Helm values %s", app.Name, values)
		}
		return r.Apps.Create(ctx, app)
	})
}

// Sync starts a sync operation.
func Sync(name string, options ...string) step.Step {
	return act("sync application "+name, func(ctx context.Context) error {
		opts, _ := json.Marshal(append([]string{}, options...))
		if !call(ctx, "sync application "+name, "sync_app", name, string(opts)) {
			return nil
		}
		lifecycle.CellFrom(ctx).Step("sync application %s %v", name, options)
		return lifecycle.From(ctx).Apps.Sync(ctx, name, options...)
	})
}

// Refresh asks for a (hard) refresh and waits until the controller took it.
func Refresh(name string, hard bool) step.Step {
	what := "refresh application " + name
	if hard {
		what = "hard " + what
	}
	return act(what, func(ctx context.Context) error {
		kind := "normal"
		if hard {
			kind = "hard"
		}
		if !call(ctx, what, "refresh_app", name, kind) {
			return nil
		}
		r := lifecycle.From(ctx)
		lifecycle.CellFrom(ctx).Step("%s", what)
		if err := r.Apps.Refresh(ctx, name, hard); err != nil {
			return err
		}
		return assert.Eventually(ctx, what+" taken", assert.Intervals.Sync, r.Apps.Refreshed(name))
	})
}

// WebhookRefresh asks for a normal refresh of the Application and goes on,
// as ArgoCD's webhook handler does when a push event touches the
// Application's paths (argo-cd v3.4.2 util/webhook/webhook.go:396,
// argo.RefreshApp): what a team whose git server sends ArgoCD webhooks has
// after each push. The handler's own path (its URL matching, its
// manifest-generate-paths filter) is not taken.
func WebhookRefresh(name string) step.Step {
	what := "a git webhook's refresh of application " + name
	return act(what, func(ctx context.Context) error {
		if !call(ctx, what, "webhook_refresh", name) {
			return nil
		}
		lifecycle.CellFrom(ctx).Step("%s (as ArgoCD's webhook handler asks on a push)", what)
		return lifecycle.From(ctx).Apps.Refresh(ctx, name, false)
	})
}

// SetArgoCDConfig merges data into argocd-cm (the cell restores the keys
// it set at its end); ArgoCD's components watch it and need no restart.
func SetArgoCDConfig(data map[string]string) step.Step {
	return setConfigMap("argocd-cm", data, false)
}

// SetArgoCDCmdParams merges data into argocd-cmd-params-cm, the settings
// ArgoCD's components read as flags at start-up (server-side diff,
// --persist-resource-health...), then restarts every Deployment and
// StatefulSet of ArgoCD and waits for them; the cell restores the keys it
// set at its end. An in-place upgrade keeps them, as a team's does: neither
// apply removes data keys install.yaml does not name.
func SetArgoCDCmdParams(data map[string]string) step.Step {
	return setConfigMap("argocd-cmd-params-cm", data, true)
}

// ExcludeResources adds a rule to argocd-cm's resource.exclusions, after
// the rules already there (the install's defaults from 3.0: replacing them
// would manage Endpoints again), as a team adds one: ArgoCD's cluster cache
// then neither lists nor watches the group's kinds. The cell restores the
// setting at its end.
func ExcludeResources(group, kind string) step.Step {
	return act("exclude "+kind+"."+group+" in argocd-cm", func(ctx context.Context) error {
		// repro.sh, written while planning, cannot read the live setting: its
		// patch holds the rule alone
		had := ""
		if !repro.Planning(ctx) {
			cm, err := lifecycle.From(ctx).Kube.Get(ctx, "configmap", argocd.Namespace, "argocd-cm")
			if err != nil {
				return err
			}
			had, _, _ = unstructured.NestedString(cm.Object, "data", "resource.exclusions")
		}
		return configure(ctx, "argocd-cm", map[string]string{"resource.exclusions": withExclusion(had, group, kind)}, false)
	})
}

// withExclusion is the resource.exclusions value had with a rule for kind
// of group, on every cluster, after the rules already there.
func withExclusion(had, group, kind string) string {
	if had != "" && !strings.HasSuffix(had, "\n") {
		had += "\n"
	}
	return had + fmt.Sprintf("- apiGroups:\n  - %s\n  kinds:\n  - %s\n  clusters:\n  - '*'\n", group, kind)
}

// RestartArgoCD restarts every workload of ArgoCD (kubectl rollout restart,
// as an upgrade, a node drain or an evicted Pod does) and waits for them: its
// application controller builds its cluster cache again, from nothing.
func RestartArgoCD() step.Step {
	return act("restart argocd", func(ctx context.Context) error {
		// what argocd.Installer.Restart runs, as repro.sh has it
		ws := fmt.Sprintf("$(kubectl -n %s get deploy,statefulset -o name)", argocd.Namespace)
		if !do(ctx, "restart argocd", fmt.Sprintf(`for w in %[1]s; do kubectl -n %[2]s rollout restart "$w"; done; for w in %[1]s; do kubectl -n %[2]s rollout status "$w" --timeout=5m; done`,
			ws, argocd.Namespace), nil) {
			return nil
		}
		lifecycle.CellFrom(ctx).Step("restart every ArgoCD workload (kubectl rollout restart), and wait for them")
		return lifecycle.From(ctx).Installer.Restart(ctx)
	})
}

// setConfigMap merges data into an ArgoCD ConfigMap, restarting ArgoCD's
// workloads after it when they read it at start-up only.
func setConfigMap(name string, data map[string]string, restart bool) step.Step {
	return act("configure "+name, func(ctx context.Context) error { return configure(ctx, name, data, restart) })
}

// configure is setConfigMap's action.
func configure(ctx context.Context, name string, data map[string]string, restart bool) error {
	patch, _ := json.Marshal(map[string]any{"data": data})
	if !kubectlStep(ctx, "configure "+name, "-n", argocd.Namespace, "patch", "configmap", name, "--type", "merge", "-p", string(patch)) {
		return nil
	}
	r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
	cm, err := r.Kube.Get(ctx, "configmap", argocd.Namespace, name)
	if err != nil {
		return err
	}
	had, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	old := map[string]*string{}
	for k := range data {
		if v, ok := had[k]; ok {
			old[k] = &v
		} else {
			old[k] = nil
		}
	}
	c.Watch("configmap", argocd.Namespace, name)
	c.Defer("restore "+name, func(ctx context.Context) error { return patchConfig(ctx, r, name, old) })
	set := map[string]*string{}
	for k, v := range data {
		set[k] = &v
		c.Step("%s %s:\n%s", name, k, v)
	}
	if err := patchConfig(ctx, r, name, set); err != nil || !restart {
		return err
	}
	return r.Installer.Restart(ctx)
}

func patchConfig(ctx context.Context, r *lifecycle.Run, name string, data map[string]*string) error {
	patch, _ := json.Marshal(map[string]any{"data": data})
	_, err := r.Kubectl.Run(ctx, "-n", argocd.Namespace, "patch", "configmap", name, "--type", "merge", "-p", string(patch))
	return err
}

// CountInLive records how often needle occurs in the desired files and in the
// live object (in its namespace): evidence of what the API server kept.
func CountInLive(files fixture.Files, obj Object, needle string) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	get := repro.Quote(kind) + " " + repro.Quote(name)
	if namespace != "" {
		get += " -n " + repro.Quote(namespace)
	}
	return look("count "+needle+" in "+lifecycle.Ref(kind, namespace, name), func(ctx context.Context) error {
		if !do(ctx, "count "+needle+" in the live "+lifecycle.Ref(kind, namespace, name), fmt.Sprintf(`echo "    %s: $(kubectl get %s -o jsonpath='{.spec}' | grep -o %s | wc -l) %s in the live object's spec"`,
			name, get, repro.Quote(needle), needle), nil) {
			return nil
		}
		r := lifecycle.From(ctx)
		f, err := files(ctx)
		if err != nil {
			return err
		}
		desired := 0
		for _, content := range f {
			desired += strings.Count(content, needle)
		}
		// .spec only: the last-applied-configuration annotation holds a copy of the desired manifest
		o, err := r.Kube.Get(ctx, kind, namespace, name)
		if err != nil {
			return err
		}
		live, err := kube.JSONPath(o.Object, "{.spec}")
		if err != nil {
			return err
		}
		lifecycle.CellFrom(ctx).Watch(kind, namespace, name)
		lifecycle.Note(ctx, "%s: the desired manifest has %d %q, the live object's spec %d", name, desired, needle, strings.Count(live, needle))
		return nil
	})
}

// Deletion modes of DeleteApp: the finalizer that decides what happens to the
// Application's resources.
const (
	Foreground = argocd.Foreground
	Background = argocd.Background
	NonCascade = argocd.NonCascade
)

// DeleteApp deletes an Application the way a user does, with the deletion
// mode's finalizer (Foreground, Background: cascading; or NonCascade),
// without waiting: whether it goes is for check.AppGone to tell. The cell's deletion of it (registered by CreateApp) becomes one that
// tolerates the Application being gone already.
func DeleteApp(name string, mode argocd.Deletion) step.Step {
	what := "delete application " + name + " (" + string(mode) + ")"
	return act(what, func(ctx context.Context) error {
		finalizer := map[argocd.Deletion]string{Foreground: argocd.CascadeForeground, Background: argocd.CascadeBackground}[mode]
		if !call(ctx, what, "delete_app", name, finalizer) {
			return nil
		}
		c := lifecycle.CellFrom(ctx)
		c.Step("%s", what)
		c.Drop(deletionAtEnd(name))
		deleteAtEnd(ctx, name, mode, assert.Intervals.Install)
		return lifecycle.From(ctx).Apps.Delete(ctx, name, mode)
	})
}

// deletionAtEnd names the cell's deletion of application name, the one
// cleanup that deletes it (DeleteApp takes CreateApp's over).
func deletionAtEnd(name string) string { return "delete application " + name }

// deleteAtEnd registers the cell's deletion of application name (mode),
// named deletionAtEnd(name): it
// starts the deletion unless the Application is gone or being deleted; then,
// when the cell releases its deletion hooks (ReleaseDeletionHooksAtEnd), it
// removes ArgoCD's deletion-hook finalizers; then it waits for it to go,
// within. In that order: the API server adds no finalizer to an object being
// deleted, while ArgoCD puts its pre-delete finalizer back on an Application
// that is not (two of four label-only tracking cells on v3.6.1, whose hooks
// had been released before their deletion, held it and ended ERROR: run
// 20261129-111248, runs 3 and 4).
func deleteAtEnd(ctx context.Context, name string, mode argocd.Deletion, within time.Duration) {
	r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
	c.Defer(deletionAtEnd(name), func(ctx context.Context) error {
		if gone, _, err := r.Apps.Gone(name)(ctx); err != nil || gone {
			return err
		}
		if err := r.Apps.Delete(ctx, name, mode); err != nil {
			return err
		}
		if c.DeletionHooksReleased(name) {
			if err := releaseDeletionHooks(ctx, name); err != nil {
				return err
			}
		}
		return assert.Eventually(ctx, "application "+name+" gone", within, r.Apps.Gone(name))
	})
}

// applicationManifest is an Application as a user applies it: apiVersion,
// kind, metadata (name, namespace, labels, annotations, finalizers) and spec.
func applicationManifest(app *v1alpha1.Application) string {
	meta := map[string]any{"name": app.Name, "namespace": argocd.Namespace}
	if len(app.Labels) > 0 {
		meta["labels"] = app.Labels
	}
	if len(app.Annotations) > 0 {
		meta["annotations"] = app.Annotations
	}
	if len(app.Finalizers) > 0 {
		meta["finalizers"] = app.Finalizers
	}
	return toYAML(map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": meta, "spec": app.Spec})
}
