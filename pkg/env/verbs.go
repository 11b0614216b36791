package env

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/features"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/gitserver"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Files produces a fixture repository's files when the step runs.
type Files func(ctx context.Context) (map[string]string, error)

// ComponentDocument is one YAML document (by metadata.name) of a component
// release's file, fetched per the run's mode; the source goes into the report.
func ComponentDocument(component, version, file, name, path string) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		r := From(ctx)
		data, src, err := sources.File(ctx, r.Catalog, r.Mode, component, version, file)
		if err != nil {
			return nil, err
		}
		doc, err := sources.Document(data, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		observe(ctx, "source: %s %s from %s", component, name, src)
		return map[string]string{path: doc}, nil
	})
}

// once memoizes a Files: a feature's steps share one fetch.
func once(f Files) Files {
	var files map[string]string
	return func(ctx context.Context) (map[string]string, error) {
		if files != nil {
			return files, nil
		}
		var err error
		files, err = f(ctx)
		return files, err
	}
}

// PushRepo commits files to a fixture repository on the in-cluster git server.
func PushRepo(repo string, files Files) features.Func {
	return assert.Step("push repository "+repo, func(ctx context.Context) error {
		f, err := files(ctx)
		if err != nil {
			return err
		}
		commit, err := From(ctx).Git.Push(ctx, repo, "gitops-conformance fixture", f)
		if err != nil {
			return err
		}
		observe(ctx, "pushed %d file(s) to %s at %s", len(f), gitserver.URL(repo), commit[:min(12, len(commit))])
		return nil
	})
}

// RepoURL is a fixture repository's URL as ArgoCD sees it.
func RepoURL(repo string) string { return gitserver.URL(repo) }

// CreateApp creates an Application; the cell deletes it (cascading) at its end.
func CreateApp(app *v1alpha1.Application) features.Func {
	return assert.Step("create application "+argocd.Namespace+"/"+app.Name, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		c.Watch("applications.argoproj.io", argocd.Namespace, app.Name)
		c.Defer("delete application "+app.Name, func(ctx context.Context) error {
			if err := r.Apps.Delete(ctx, app.Name, argocd.Foreground); err != nil {
				return err
			}
			return assert.Eventually(ctx, "application "+app.Name+" gone", assert.Intervals.Sync, r.Apps.Gone(app.Name))
		})
		spec, _ := json.Marshal(app.Spec)
		c.Step("create application %s: %s", app.Name, spec)
		if h := app.Spec.GetSource().Helm; h != nil && h.Values != "" {
			// a report says which chart values a cell chose (what it switches off)
			values, err := yaml.YAMLToJSON([]byte(h.Values))
			if err != nil {
				return fmt.Errorf("application %s: Helm values: %w", app.Name, err)
			}
			observe(ctx, "application %s: Helm values %s", app.Name, values)
		}
		return r.Apps.Create(ctx, app.DeepCopy())
	})
}

// Sync starts a sync operation.
func Sync(name string, options ...string) features.Func {
	return assert.Step("sync application "+name, func(ctx context.Context) error {
		CellFrom(ctx).Step("sync application %s %v", name, options)
		return From(ctx).Apps.Sync(ctx, name, options...)
	})
}

// Refresh asks for a (hard) refresh and waits until the controller took it.
func Refresh(name string, hard bool) features.Func {
	what := "refresh application " + name
	if hard {
		what = "hard " + what
	}
	return assert.Step(what, func(ctx context.Context) error {
		r := From(ctx)
		CellFrom(ctx).Step("%s", what)
		if err := r.Apps.Refresh(ctx, name, hard); err != nil {
			return err
		}
		return assert.Eventually(ctx, what+" taken", assert.Intervals.Sync, r.Apps.Refreshed(name))
	})
}

// SetArgoCDConfig sets keys in argocd-cm; the cell restores the old values.
func SetArgoCDConfig(data map[string]string) features.Func {
	return assert.Step("configure argocd-cm", func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		old := map[string]*string{}
		for k := range data {
			out, err := r.Kubectl.Run(ctx, "-n", argocd.Namespace, "get", "configmap", "argocd-cm", "-o", "json")
			if err != nil {
				return err
			}
			var cm struct{ Data map[string]string }
			if err := json.Unmarshal([]byte(out), &cm); err != nil {
				return err
			}
			if v, ok := cm.Data[k]; ok {
				old[k] = &v
			} else {
				old[k] = nil
			}
		}
		c.Watch("configmap", argocd.Namespace, "argocd-cm")
		c.Defer("restore argocd-cm", func(ctx context.Context) error { return patchConfig(ctx, r, old) })
		set := map[string]*string{}
		for k, v := range data {
			set[k] = &v
			c.Step("argocd-cm %s:\n%s", k, v)
		}
		return patchConfig(ctx, r, set)
	})
}

func patchConfig(ctx context.Context, r *Run, data map[string]*string) error {
	patch, _ := json.Marshal(map[string]any{"data": data})
	_, err := r.Kubectl.Run(ctx, "-n", argocd.Namespace, "patch", "configmap", "argocd-cm", "--type", "merge", "-p", string(patch))
	return err
}

// CountInLive records how often needle occurs in the desired files and in the
// live object: evidence of what the API server kept.
func CountInLive(files Files, kind, name, needle string) features.Func {
	return assert.Step("count "+needle+" in "+kind+" "+name, func(ctx context.Context) error {
		r := From(ctx)
		f, err := files(ctx)
		if err != nil {
			return err
		}
		desired := 0
		for _, content := range f {
			desired += strings.Count(content, needle)
		}
		// .spec only: the last-applied-configuration annotation holds a copy of the desired manifest
		live, err := r.Kubectl.Run(ctx, "get", kind, name, "-o", "jsonpath={.spec}")
		if err != nil {
			return err
		}
		CellFrom(ctx).Watch(kind, "", name)
		observe(ctx, "%s: the desired manifest has %d %q, the live object's spec %d", name, desired, needle, strings.Count(live, needle))
		return nil
	})
}

// Checks over Applications, resolved against the run in ctx when they run.

// SyncStatusIs holds when the Application's sync status is s.
func SyncStatusIs(name string, s v1alpha1.SyncStatusCode) assert.Check {
	return func(ctx context.Context) (bool, string, error) { return From(ctx).Apps.SyncStatusIs(name, s)(ctx) }
}

// HealthIs holds when the Application's health is h.
func HealthIs(name, h string) assert.Check {
	return func(ctx context.Context) (bool, string, error) { return From(ctx).Apps.HealthIs(name, h)(ctx) }
}

// OperationPhaseIs holds when the Application's last operation is in phase p.
func OperationPhaseIs(name string, p synccommon.OperationPhase) assert.Check {
	return func(ctx context.Context) (bool, string, error) { return From(ctx).Apps.OperationPhaseIs(name, p)(ctx) }
}

// OperationMessageContains holds when the operation's message contains s.
func OperationMessageContains(name, s string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		return From(ctx).Apps.OperationMessageContains(name, s)(ctx)
	}
}
