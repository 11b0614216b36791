package env

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Provided resolves files before anything else runs: an input the user has
// not provided (fixture.SourceMissing) ends the cell SKIPPED with what to provide;
// any other error is an ERROR of the run.
func Provided(what string, files fixture.Files) step.Step {
	return step.Look(what, func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
		t.Helper()
		_, err := files(ctx)
		var missing *fixture.SourceMissing
		switch {
		case errors.As(err, &missing):
			lifecycle.CellFrom(ctx).Step("skipped: %s", missing.Why)
			assert.RecordFrom(ctx).Skip(missing.Why)
			t.Skip(missing.Why)
		case err != nil:
			assert.RecordFrom(ctx).Fail(fmt.Sprintf("%s: %v", what, err))
			t.Fatalf("%s: %v", what, err)
		}
		return ctx
	})
}

// Applies ends the cell SKIPPED when the files (resolved here) lack what the
// variant acts on: missing returns what is absent and why, "" when the files
// have it. A mitigation of a part that a component's release no longer ships
// is not judged (neither MITIGATED nor NOT_MITIGATED: there is nothing to
// mitigate); a failure to read the files is an ERROR of the run.
func Applies(what string, files fixture.Files, missing func(files map[string]string) string) step.Step {
	return step.Look(what, func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
		t.Helper()
		fs, err := files(ctx)
		if err != nil {
			assert.RecordFrom(ctx).Fail(fmt.Sprintf("%s: %v", what, err))
			t.Fatalf("%s: %v", what, err)
		}
		if why := missing(fs); why != "" {
			why = what + ": " + why
			lifecycle.CellFrom(ctx).Step("skipped: %s", why)
			assert.RecordFrom(ctx).Skip(why)
			t.Skip(why)
		}
		return ctx
	})
}

// HelmInstallChart installs a chart's files as release rel through the Helm
// SDK (rel.NoWait: without waiting, as `helm install` without --wait); the
// cell uninstalls it at its end (rel.NoHooks: without the delete hooks). The
// values are recorded: they are the user's, not credentials.
func HelmInstallChart(rel helm.Release, chart fixture.Files) step.Step {
	return act("helm install "+rel.Namespace+"/"+rel.Name, func(ctx context.Context) error {
		return installChart(ctx, rel, chart, func(rel helm.Release) {
			values, _ := json.Marshal(rel.Values)
			lifecycle.Note(ctx, "helm install %s into %s (Helm SDK; wait %v, --create-namespace %v), values %s", rel.Name, rel.Namespace, !rel.NoWait, !rel.ExistingNamespace, values)
		})
	})
}

// installChart writes a chart's files to disk and installs them as rel
// through the Helm SDK (default timeout assert.Intervals.Install); the cell
// uninstalls it and removes the files at its end. note records the install
// the caller's way before it starts.
func installChart(ctx context.Context, rel helm.Release, chart fixture.Files, note func(helm.Release)) error {
	r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
	f, err := chart(ctx)
	if err != nil {
		return err
	}
	dir, err := fixture.WriteChart(r, rel.Name, f)
	if err != nil {
		return err
	}
	rel.Chart = dir
	if rel.Timeout == 0 {
		rel.Timeout = assert.Intervals.Install
	}
	if act, err := helmStep(ctx, rel, f); err != nil || !act {
		_ = os.RemoveAll(dir) // a rendered copy under the cache's temporary space: a leftover is harmless
		return err
	}
	c.Defer("helm uninstall "+rel.Name, func(context.Context) error {
		defer os.RemoveAll(dir)
		return helm.UninstallRelease(r.Kubectl.Kubeconfig, rel, io.Discard)
	})
	note(rel)
	return helm.Install(ctx, r.Kubectl.Kubeconfig, rel, r.Out)
}

// UpdateApp changes an existing Application's spec the way a user edits it
// (in Git, for an app-of-apps), retrying on conflicts; the new spec is recorded.
func UpdateApp(name, what string, mutate func(*v1alpha1.Application)) step.Step {
	return act("update application "+argocd.Namespace+"/"+name+": "+what, func(ctx context.Context) error {
		if repro.Planning(ctx) { // a branch not taken: the Application to change is not known
			do(ctx, "update application "+name+": "+what, "error "+repro.Quote("the cell did not take this branch; its update of application "+name+" is not recorded"), nil)
			return nil
		}
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		var spec []byte
		var updated *v1alpha1.Application
		err := r.Apps.Update(ctx, name, func(app *v1alpha1.Application) {
			mutate(app)
			spec, _ = json.Marshal(app.Spec)
			updated = app.DeepCopy()
		})
		if err != nil {
			return err
		}
		applyStep(ctx, "application "+name+" ("+what+")", applicationManifest(updated))
		lifecycle.Note(ctx, "application %s: %s", name, what)
		c.Step("update application %s: %s", name, spec)
		return nil
	})
}

// RemoveRendered deletes whatever of a rendered chart exists, last document
// first (a rendering lists webhook configurations last: they go before the
// objects they guard). At the start of a cell it clears what an earlier run
// left; RemoveRenderedAtEnd does it when the cell ends.
func RemoveRendered(what string, rendered fixture.Files) step.Step {
	return actInRun("delete what is left of "+what, func(ctx context.Context) error {
		lifecycle.CellFrom(ctx).Step("delete what is left of %s", what)
		return removeRendered(ctx, what, rendered)
	})
}

// RemoveRenderedAtEnd registers RemoveRendered as a cleanup: registered
// first, it runs last, after the release or Application that installed the
// chart is gone, for what they leave behind.
func RemoveRenderedAtEnd(what string, rendered fixture.Files) step.Step {
	return actInRun("at the end, delete what is left of "+what, func(ctx context.Context) error {
		lifecycle.CellFrom(ctx).Step("at the end, delete what is left of %s", what)
		lifecycle.CellFrom(ctx).Defer("delete what is left of "+what, func(ctx context.Context) error {
			return removeRendered(ctx, what, rendered)
		})
		return nil
	})
}

func removeRendered(ctx context.Context, what string, rendered fixture.Files) error {
	r := lifecycle.From(ctx)
	manifest, err := fixture.Manifest(ctx, rendered)
	if err != nil {
		return err
	}
	var docs []string
	for _, d := range strings.Split("\n"+manifest, "\n---") {
		if !strings.Contains(d, "kind:") {
			continue
		}
		// an object of a kind the cluster does not serve (a CRD not installed)
		// is not there; kubectl would refuse the whole manifest for it
		if objs, err := kube.Decode(d); err == nil && len(objs) == 1 {
			gvk := objs[0].GroupVersionKind()
			kind := strings.ToLower(gvk.Kind)
			if gvk.Group != "" {
				kind += "." + gvk.Group
			}
			if _, _, err := r.Kube.Resource(kind); errors.Is(err, kube.ErrNoResourceType) {
				continue
			} else if err != nil {
				return fmt.Errorf("delete what is left of %s: %w", what, err)
			}
		}
		docs = append(docs, strings.TrimSpace(d))
	}
	if len(docs) == 0 {
		return nil
	}
	for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
		docs[i], docs[j] = docs[j], docs[i]
	}
	out, err := shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader("---\n" + strings.Join(docs, "\n---\n") + "\n"),
		Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "delete", "--ignore-not-found", "--wait=true", "--timeout=2m", "-f", "-"}})
	if out = strings.TrimSpace(out); out != "" {
		r.Logf("delete what is left of %s: %s", what, strings.ReplaceAll(out, "\n", "; "))
	}
	return err
}
