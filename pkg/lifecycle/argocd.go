package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// InstallArgoCD makes rel the installed release: a fresh install, after
// removing any other release (cells of one version share it), and the git
// server. A git server that did not start (or a reused cluster without one)
// is started by the next cell, on an image of rel loaded into this cluster.
func (r *Run) InstallArgoCD(ctx context.Context, rel catalog.Release) error {
	if r.ArgoCD == rel && r.Git != nil {
		return nil
	}
	if err := r.provideArgoCDImages(ctx, rel); err != nil {
		return err
	}
	if r.ArgoCD != rel {
		if !r.ArgoCD.IsZero() {
			if err := r.UninstallArgoCD(ctx); err != nil {
				return err
			}
		}
		r.Logf("argocd %s: installing", rel)
		if err := r.Installer.Install(ctx, rel); err != nil {
			return err
		}
		r.ArgoCD = rel
	}
	return r.startGitServer(ctx)
}

// UpgradeArgoCD applies rel over the installed release, in place, the way a
// user upgrades: Applications and their operations stay.
func (r *Run) UpgradeArgoCD(ctx context.Context, rel catalog.Release) error {
	if err := r.provideArgoCDImages(ctx, rel); err != nil {
		return err
	}
	r.Logf("argocd %s -> %s: upgrading in place", r.ArgoCD, rel)
	if err := r.Installer.Install(ctx, rel); err != nil {
		return err
	}
	r.ArgoCD = rel
	return nil
}

// ProvideArgoCD gives the nodes a release's images (offline: built or
// found cached) before an upgrade applies it.
func (r *Run) ProvideArgoCD(ctx context.Context, rel catalog.Release) error {
	return r.provideArgoCDImages(ctx, rel)
}

// ApplyArgoCD applies rel's install manifests over the running release with
// the method, as a team upgrades (ProvideArgoCD first), and waits for
// nothing: the cell's looks wait for its workloads, each saying what keeps
// one from coming up. From here the release to uninstall is rel's, even
// when the API server refused part of it.
func (r *Run) ApplyArgoCD(ctx context.Context, rel catalog.Release, m argocd.Method) error {
	r.Logf("argocd %s -> %s: upgrading in place (%s)", r.ArgoCD, rel, m.Command())
	err := r.Installer.ApplyOver(ctx, rel, m)
	r.ArgoCD = rel
	return err
}

// ApplyArgoCDOverlay is ApplyArgoCD through the team's kustomize overlay:
// an overlay that does not build over rel's manifests applied nothing, and
// the release running stays the one before.
func (r *Run) ApplyArgoCDOverlay(ctx context.Context, rel catalog.Release, o argocd.Overlay) error {
	r.Logf("argocd %s -> %s: upgrading in place through the overlay %s", r.ArgoCD, rel, o.Dir)
	err := r.Installer.ApplyOverlay(ctx, rel, o)
	var failed *argocd.ApplyError
	if !errors.As(err, &failed) || failed.Stage != "build" {
		r.ArgoCD = rel
	}
	return err
}

// UpgradedItself records that rel is the release running, ArgoCD having
// synced rel's install manifests itself (a self-managed upgrade): from here
// the release to uninstall is rel's.
func (r *Run) UpgradedItself(rel catalog.Release) {
	r.Logf("argocd %s -> %s: upgraded by an Application of its own", r.ArgoCD, rel)
	r.ArgoCD = rel
}

// UninstallArgoCD removes the installed release.
func (r *Run) UninstallArgoCD(ctx context.Context) error {
	if r.ArgoCD.IsZero() {
		return nil
	}
	r.Logf("argocd %s: uninstalling", r.ArgoCD)
	if err := r.Installer.Uninstall(ctx, r.ArgoCD); err != nil {
		return err
	}
	r.ArgoCD = catalog.Release{}
	return nil
}

// provideArgoCDImages builds (offline) and loads a release's images into the node.
func (r *Run) provideArgoCDImages(ctx context.Context, rel catalog.Release) error {
	if r.Mode != images.Offline {
		r.gitImage = rel.Image()
		return r.mirrorHolds(ctx, rel)
	}
	imgs, err := r.BuildArgoCD(ctx, rel)
	if err != nil {
		return err
	}
	for _, img := range imgs {
		// the git server runs on an ArgoCD image loaded into this cluster
		// (it has git); one already running keeps its own
		if strings.Contains(img, "argoproj/argocd:") && r.Git == nil {
			r.gitImage = img
		}
	}
	return r.LoadImages(ctx, imgs...)
}

// BuildArgoCD builds (or finds cached) a release's offline images and
// returns them, loading nothing: from its module zip, or from its source
// tree (ARGOCD_SOURCES) for releases whose module does not build. An error
// is a release that cannot be built here (a bisect leaves it out); online
// there is nothing to build.
func (r *Run) BuildArgoCD(ctx context.Context, rel catalog.Release) ([]string, error) {
	imgs, notes, err := r.buildArgoCD(ctx, r.Images, rel)
	for _, n := range notes {
		r.noteOnce("%s", n)
	}
	return imgs, err
}

// ComponentBuild is a component release's offline images, built with its
// recipe (images/<Recipe>/build.sh Version); Component names it in the
// catalog, whose sources say whether it builds from a source tree the user
// provides.
type ComponentBuild struct {
	Component, Recipe, Version string
}

// Prebuilt is one build of a prebuild: an ArgoCD release's images, or (its
// ArgoCD zero) a component's.
type Prebuilt struct {
	ArgoCD    catalog.Release
	Component ComponentBuild
}

func (p Prebuilt) String() string {
	if !p.ArgoCD.IsZero() {
		return "ArgoCD " + p.ArgoCD.String()
	}
	return p.Component.Recipe + " " + p.Component.Version
}

// Prebuild builds, beside the node image and the cluster, the offline images
// a run needs (in order, one at a time): the ArgoCD releases and the
// components' images, so that the cells find them done instead of waiting
// on a build of their own (on a new machine each of knative's first three
// cells waited 268-309 s on Knative's images built inside it). On 2 cores a
// build's single-threaded links and downloads leave a core idle that the
// node image's build then uses. It returns at once; a build that fails here
// fails again, and is reported, where its cell needs it (a cell waits on the
// build's lock while the prebuild holds it). Its progress lines are prefixed
// "prebuild".
func (r *Run) Prebuild(ctx context.Context, builds []Prebuilt) {
	if r.Mode != images.Offline || len(builds) == 0 {
		return
	}
	b := *r.Images
	b.Out, b.Spent = prefixed{r.Out, "prebuild: "}, nil // beside the run: no phase of it
	r.Logf("prebuild: %s beside the node image and the cluster", prebuildList(builds))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	r.stopPrebuild = func() { cancel(); <-done }
	go func() {
		defer close(done)
		for _, p := range builds {
			if ctx.Err() != nil {
				return
			}
			var err error
			if !p.ArgoCD.IsZero() {
				_, _, err = r.buildArgoCD(ctx, &b, p.ArgoCD)
			} else {
				err = r.BuildComponent(ctx, &b, p.Component)
			}
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(b.Out, "%s: %v (the cell that needs it reports it)\n", p, images.Cause(err))
			}
		}
	}()
}

// StopPrebuild ends a prebuild still running (its build's processes with
// it) and waits for it: a run leaves no build behind.
func (r *Run) StopPrebuild() {
	if r.stopPrebuild != nil {
		r.stopPrebuild()
	}
}

func prebuildList(builds []Prebuilt) string {
	var s []string
	for _, p := range builds {
		s = append(s, p.String())
	}
	return strings.Join(s, ", ")
}

// prefixed writes each write prefixed (a build's progress comes a line a write).
type prefixed struct {
	w      io.Writer
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.prefix+string(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// BuildComponent builds a component's images with b, as its cell does
// (env.ComponentImages): from the source tree the user provides when the
// catalog's sources name one (a tree not provided is the cell's to report:
// it is SKIPPED), else by the recipe alone. The prebuild and make
// bench-builds build with it.
func (r *Run) BuildComponent(ctx context.Context, b *images.Builder, cb ComponentBuild) error {
	comp, err := r.Catalog.Component(cb.Component)
	if err != nil || !comp.FromTree() {
		_, err = b.Component(ctx, cb.Recipe, cb.Version)
		return err
	}
	dir, _, err := sources.TreesOf(comp.Sources).Tree(r.Repo, filepath.Join(r.CacheDir, "sources"), cb.Version)
	if err != nil {
		return err
	}
	_, _, err = buildFromTree(ctx, b, cb.Recipe, cb.Version, dir)
	return err
}

// BuildFromTree builds a component's images with its recipe from the source
// tree dir (images/<recipe>/build.sh VERSION DIR), the tree's git commit,
// when it is known (sources.TreeCommit), as GIT_COMMIT: a release's version
// string needs it. from says which tree and commit, for the report.
func (r *Run) BuildFromTree(ctx context.Context, recipe, version, dir string) (imgs []string, from string, err error) {
	return buildFromTree(ctx, r.Images, recipe, version, dir)
}

func buildFromTree(ctx context.Context, b *images.Builder, recipe, version, dir string) ([]string, string, error) {
	commit, how, err := sources.TreeCommit(ctx, dir)
	if err != nil {
		return nil, "", fmt.Errorf("the commit of %s's tree %q: %w", recipe, dir, err)
	}
	from := dir + ", commit unknown (the recipe builds without one)"
	var env []string
	if commit != "" {
		from = fmt.Sprintf("%s, commit %s from %s", dir, commit, how)
		env = append(env, "GIT_COMMIT="+commit)
	}
	imgs, err := b.ComponentWith(ctx, env, recipe, version, dir)
	return imgs, from, err
}

// buildArgoCD is BuildArgoCD with builder b; notes are what the report says
// of where the images came from.
func (r *Run) buildArgoCD(ctx context.Context, b *images.Builder, rel catalog.Release) ([]string, []string, error) {
	if r.Mode != images.Offline {
		return nil, nil, nil
	}
	var tree, src string
	var err error
	if rel.FromSources() {
		tree, src, err = argocd.Sources.Tree(r.Repo, filepath.Join(r.CacheDir, "sources"), rel.String())
	}
	if err != nil {
		return nil, nil, fmt.Errorf("argocd %s: %w", rel, err)
	}
	var commit string
	var notes []string
	if tree != "" {
		how := ""
		if commit, how, err = sources.TreeCommit(ctx, tree); err != nil {
			return nil, nil, fmt.Errorf("the commit of argo-cd's tree %s: %w", tree, err)
		}
		if commit == "" {
			commit, how = "unknown", "neither a checkout nor an archive made by git: the version reads +unknown"
		}
		notes = append(notes, fmt.Sprintf("offline: ArgoCD %s images and install.yaml from its source tree (its module zip lacks the nested gitops-engine): %s, commit %s, from %s; argocd-dex-server is left out (dex is not obtainable offline)",
			rel, src, commit, how))
		if commit == "unknown" {
			commit = ""
		}
	}
	imgs, err := b.ArgoCD(ctx, rel, tree, commit)
	if err != nil {
		return nil, nil, err
	}
	if tree == "" {
		notes = append(notes, fmt.Sprintf("offline: ArgoCD images built from %s at each tag; argocd-dex-server is left out (dex is not obtainable offline)",
			rel.Module())) // one note per major version
	}
	return imgs, notes, nil
}

// mirrorHolds checks, before an online install through a registry mirror,
// that the mirror holds every image the release's install.yaml names, so a
// missing one is one clear error instead of an ImagePullBackOff at rollout.
// Dex is the exception: the suite needs no login, and offline it is left out
// too, so a mirror without dex's image gets the install without it (noted).
func (r *Run) mirrorHolds(ctx context.Context, rel catalog.Release) error {
	if r.Mirror == nil {
		return nil
	}
	path, err := r.Installer.Manifest(ctx, rel)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var missing []string
	for _, img := range argocd.ManifestImages(string(data)) {
		ok, err := r.Mirror.Has(ctx, img)
		if err != nil {
			return err
		}
		switch {
		case ok:
		case strings.Contains(img, "/dexidp/dex:"):
			r.Installer.NoDex[rel] = true
			r.noteOnce("registry mirror %s: it lacks %s, so argocd-dex-server is left out of the online install (the suite needs no login; offline leaves it out too)", r.Mirror, img)
		default:
			missing = append(missing, img)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("registry mirror %s lacks the images of argocd %s: %s (push them under their upstream paths; see make mirror-check)",
			r.Mirror, rel, strings.Join(missing, ", "))
	}
	return nil
}

// LoadImages gives the cluster's nodes local images, once each: `kind load`,
// or, delivering through the suite's registry, a push the nodes then pull from.
func (r *Run) LoadImages(ctx context.Context, imgs ...string) error {
	for _, img := range imgs {
		if r.loaded[img] {
			continue
		}
		start := time.Now()
		if r.local != nil {
			// shards of a parallel run share the registry: one pushes, the others wait
			if err := images.Locked(ctx, r.CacheDir, "push "+img, r.Out, func() error { return r.local.PushImage(ctx, img) }); err != nil {
				return err
			}
			r.Logf("image %s: pushed to %s in %.1fs", img, r.local.Name, time.Since(start).Seconds())
		} else {
			if err := r.cluster.LoadImage(ctx, img); err != nil {
				return fmt.Errorf("load image %q: %w", img, err)
			}
			r.Logf("image %s: loaded into the node in %.1fs", img, time.Since(start).Seconds())
		}
		r.loaded[img] = true
	}
	return nil
}

// Loaded are the images LoadImages gave the cluster's nodes so far (the
// kubelet lists them in its node status only at its next report).
func (r *Run) Loaded() []string {
	out := make([]string, 0, len(r.loaded))
	for img := range r.loaded {
		out = append(out, img)
	}
	slices.Sort(out)
	return out
}

func (r *Run) startGitServer(ctx context.Context) error {
	if r.Git != nil {
		return nil
	}
	git, err := gitserver.Start(ctx, r.Kubectl, r.Kube, r.gitImage)
	if err != nil {
		return err
	}
	if err := assert.Eventually(ctx, "git server reachable from argocd-repo-server", assert.Intervals.Rollout, func(ctx context.Context) (bool, string, error) {
		return git.Reachable(ctx, argocd.Namespace, "argocd-repo-server")
	}); err != nil {
		return err
	}
	r.Git = git
	return nil
}

// installedArgoCD reads the release a reused cluster runs, none when it
// runs none the suite knows (the cell then installs its own over it).
func (r *Run) installedArgoCD(ctx context.Context) catalog.Release {
	if _, err := r.Kubectl.Run(ctx, "get", "namespace", argocd.Namespace); err != nil {
		return catalog.Release{}
	}
	v, err := r.Installer.RunningVersion(ctx)
	if err != nil {
		return catalog.Release{}
	}
	tag, _, _ := strings.Cut(v, "+")
	rel, err := r.Catalog.Release(tag)
	if err != nil {
		r.Logf("argocd %s found in the reused cluster: %v; it is replaced", v, err)
		return catalog.Release{}
	}
	r.Logf("argocd %s: found installed in the reused cluster", rel)
	if _, err := r.Kubectl.Run(ctx, "get", "namespace", gitserver.Namespace); err == nil {
		r.Git = gitserver.Attach(r.Kube)
	}
	return rel
}

func (r *Run) noteOnce(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	for _, have := range r.Notes {
		if have == n {
			return
		}
	}
	r.Notes = append(r.Notes, n)
}
