package env

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Values produces Helm values when the step runs (e.g. generated credentials).
type Values func(ctx context.Context) (map[string]any, error)

// HelmInstall installs a chart release with the Helm SDK and waits for it;
// the cell uninstalls it at its end. Only the value keys are logged, never
// the values (they may hold credentials).
func HelmInstall(r helm.Release, values Values) step.Step {
	return act("helm install "+r.Namespace+"/"+r.Name, func(ctx context.Context) error {
		run, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		v, err := values(ctx)
		if err != nil {
			return err
		}
		r.Values = v
		if r.Timeout == 0 {
			r.Timeout = assert.Intervals.Install
		}
		dir := repro.Dir(ctx, "charts/"+r.Name)
		shell := fmt.Sprintf("subst \"$BUNDLE/%s/values.yaml\" > \"$WORK/values-%s.yaml\"\nhelm install %s %s --version %s -n %s --create-namespace --wait --timeout %ds -f \"$WORK/values-%s.yaml\" || error 'helm install %s'",
			dir, r.Name, repro.Quote(r.Name), repro.Quote(r.Chart), repro.Quote(r.Version), repro.Quote(r.Namespace), int(r.Timeout.Seconds()), r.Name, r.Name)
		if r.RepoURL != "" {
			shell = strings.Replace(shell, " --version ", " --repo "+repro.Quote(r.RepoURL)+" --version ", 1)
		}
		if !do(ctx, "helm install "+r.Namespace+"/"+r.Name, shell, map[string]string{dir + "/values.yaml": toYAML(repro.RedactValues(ctx, v))}) {
			return nil
		}
		c.Step("helm install %s %s %s into %s, values keys %v", r.Name, r.Chart, r.Version, r.Namespace, keys(v))
		c.Defer("helm uninstall "+r.Name, func(context.Context) error {
			return helm.Uninstall(run.Kubectl.Kubeconfig, r.Namespace, r.Name, io.Discard)
		})
		lifecycle.Note(ctx, "installed %s %s from %s with the Helm SDK", r.Name, r.Version, r.Chart)
		return helm.Install(ctx, run.Kubectl.Kubeconfig, r, run.Out)
	})
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

// ApplyURL applies a published manifest (online releases); the cell deletes it at its end.
func ApplyURL(what, url string) step.Step {
	return act("apply "+what+" from "+url, func(ctx context.Context) error {
		if !kubectlStep(ctx, "apply "+what+" from "+url, "apply", "--server-side", "--force-conflicts", "-f", url) {
			return nil
		}
		data, err := sources.Get(ctx, url)
		if err != nil {
			return err
		}
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		manifest := string(data)
		c.Step("apply %s from %s (%d bytes)", what, url, len(data))
		c.Defer("delete "+what, func(ctx context.Context) error {
			_, err := r.Kubectl.Run(ctx, "delete", "--ignore-not-found", "--wait=false", "-f", url)
			return err
		})
		lifecycle.Note(ctx, "applied %s from %s", what, url)
		return r.Kubectl.Apply(ctx, manifest)
	})
}

// ComponentImages builds (offline) a component's images with its recipe,
// images/<component>/build.sh VERSION, and loads them into the cluster; a
// component whose recipe builds from a source tree the user provides (its
// catalog sources name one: Kargo) is built as TreeImages builds it, so that
// IMAGE_RECIPES and the image-recipes of an Application can name it too.
// Online, the cluster pulls the upstream images itself.
func ComponentImages(component, version string) step.Step {
	return ComponentImagesWith(component, version, nil)
}

// ComponentImagesWith is ComponentImages with variables for the recipe's
// environment that only the cell knows (buildEnv may be nil): what the
// release's chart names, say.
func ComponentImagesWith(component, version string, buildEnv func(ctx context.Context) ([]string, error)) step.Step {
	return actInRun("images for "+component+" "+version, func(ctx context.Context) error {
		r := lifecycle.From(ctx)
		if r.Mode != images.Offline {
			return nil
		}
		if comp, err := r.Catalog.Component(component); err == nil && comp.FromTree() {
			s := comp.Sources
			return treeImages(ctx, component, version, fixture.UserTree(s.Env, s.Tree, version, s.Marker))
		}
		var vars []string
		if buildEnv != nil {
			var err error
			if vars, err = buildEnv(ctx); err != nil {
				return err
			}
		}
		imgs, err := r.Images.ComponentWith(ctx, vars, component, version)
		if err != nil {
			return err
		}
		imagesStep(ctx, component+" "+version, imgs)
		lifecycle.Note(ctx, "offline images for %s %s: %s", component, version, strings.Join(imgs, " "))
		return r.LoadImages(ctx, imgs...)
	})
}

// LocalImages gives the cluster's nodes images of the local Docker (kind
// load, or the suite's registry with DELIVER=registry), once each: what a
// user provides offline for a chart whose images no registry serves here.
// what names where the list came from (IMAGES).
func LocalImages(what string, imgs []string) step.Step {
	return actInRun("images from the local Docker ("+what+")", func(ctx context.Context) error {
		if len(imgs) == 0 {
			return nil
		}
		imagesStep(ctx, what, imgs)
		lifecycle.Note(ctx, "images from the local Docker (%s): %s", what, strings.Join(imgs, " "))
		return lifecycle.From(ctx).LoadImages(ctx, imgs...)
	})
}

// TreeImages builds (offline) a component's images from a source tree the
// user provides, with its recipe images/<component>/build.sh VERSION TREE,
// and loads them into the cluster. The tree's git commit, when it is known
// (see sources.TreeCommit), goes to the recipe as GIT_COMMIT (a release's
// version string needs it). Online, the cluster pulls the upstream
// images itself.
func TreeImages(component, version string, tree fixture.Tree) step.Step {
	return actInRun("images for "+component+" "+version+" from its source tree", func(ctx context.Context) error {
		if lifecycle.From(ctx).Mode != images.Offline {
			return nil
		}
		return treeImages(ctx, component, version, tree)
	})
}

// treeImages is TreeImages' build, offline.
func treeImages(ctx context.Context, component, version string, tree fixture.Tree) error {
	r := lifecycle.From(ctx)
	dir, err := tree(ctx)
	if err != nil {
		return err
	}
	imgs, from, err := r.BuildFromTree(ctx, component, version, dir)
	if err != nil {
		return err
	}
	imagesStep(ctx, component+" "+version, imgs)
	lifecycle.Note(ctx, "offline images for %s %s (built from %s): %s", component, version, from, strings.Join(imgs, " "))
	return r.LoadImages(ctx, imgs...)
}
