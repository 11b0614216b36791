package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// InstallArgoCDRelease makes rel the installed release inside a feature (a
// fresh install unless it is installed already); cells get theirs from the runner.
func InstallArgoCDRelease(rel catalog.Release) step.Step {
	return act("install argocd "+rel.String(), func(ctx context.Context) error {
		if !call(ctx, "install argocd "+rel.String(), "install_argocd", rel.String()) {
			return nil
		}
		r := lifecycle.From(ctx)
		if err := r.InstallArgoCD(ctx, rel); err != nil {
			return err
		}
		v, err := r.Installer.RunningVersion(ctx)
		if err != nil {
			return err
		}
		lifecycle.Note(ctx, "argocd %s running, the API server reports %s", rel, v)
		return nil
	})
}

// UpgradeArgoCD upgrades the installed ArgoCD to rel in place, the way a
// user does: Applications and their running operations stay. The next cell
// installs its own release again.
func UpgradeArgoCD(rel catalog.Release) step.Step {
	return act("upgrade argocd to "+rel.String(), func(ctx context.Context) error {
		if !call(ctx, "upgrade argocd in place to "+rel.String(), "install_argocd", rel.String()) {
			return nil
		}
		r := lifecycle.From(ctx)
		lifecycle.Note(ctx, "argocd %s -> %s: upgrading in place", r.ArgoCD, rel)
		return r.UpgradeArgoCD(ctx, rel)
	})
}

// UpgradeArgoCDBy upgrades the installed ArgoCD to rel in place with the
// method, as a team does ("": as rel's own upgrade guide says, read from its
// module zip), and waits for nothing: the looks after it wait for its
// workloads, each saying what keeps one from coming up. refused, when not
// nil, takes the API server's refusal of the manifests instead of the cell
// failing: an upgrade that cannot be applied is the verdict of the cell
// that asked for it, not its error.
func UpgradeArgoCDBy(rel catalog.Release, m argocd.Method, refused func(ctx context.Context, err *argocd.ApplyError)) step.Step {
	how := string(m)
	if m == "" {
		how = "as its upgrade guide says"
	}
	return act("upgrade argocd to "+rel.String()+" in place ("+how+")", func(ctx context.Context) error {
		method, source := m, "METHOD="+string(m)
		if m == "" {
			g, err := argocd.ReadGuide(ctx, rel)
			if err != nil {
				return fmt.Errorf("the upgrade method %s's guide gives: %w", rel, err)
			}
			method, source = g.Method, g.Source
		}
		if !call(ctx, "upgrade argocd in place to "+rel.String()+" ("+string(method)+" apply)", "install_argocd", rel.String(), string(method)) {
			return nil
		}
		r := lifecycle.From(ctx)
		lifecycle.Note(ctx, "argocd %s -> %s: upgrading in place with %s (%s)", r.ArgoCD, rel, method.Command(), source)
		if err := r.ProvideArgoCD(ctx, rel); err != nil {
			return err
		}
		return refusedTo(ctx, rel, r.ApplyArgoCD(ctx, rel, method), refused)
	})
}

// refusedTo hands an upgrade's refusal (an *argocd.ApplyError) to refused,
// the cell's verdict; any other error is the step's.
func refusedTo(ctx context.Context, rel catalog.Release, err error, refused func(ctx context.Context, err *argocd.ApplyError)) error {
	var refusal *argocd.ApplyError
	if errors.As(err, &refusal) && refused != nil {
		lifecycle.Note(ctx, "%s's manifests refused (%s): %v", rel, refusal.Method, refusal.Err)
		refused(ctx, refusal)
		return nil
	}
	return err
}

// ProvideArgoCDImages gives the node rel's images (built offline, or pulled)
// without installing anything: for an upgrade that ArgoCD applies itself.
func ProvideArgoCDImages(rel catalog.Release) step.Step {
	return act("argocd "+rel.String()+"'s images on the node", func(ctx context.Context) error {
		if !call(ctx, "argocd "+rel.String()+"'s images on the node", "load_argocd_images", rel.String()) {
			return nil
		}
		return lifecycle.From(ctx).ProvideArgoCD(ctx, rel)
	})
}

// ArgoCDUpgradedItself records that rel runs from here, ArgoCD having been
// asked to sync rel's manifests itself (whatever came of it: the cleanup
// uninstalls rel's).
func ArgoCDUpgradedItself(rel catalog.Release) step.Step {
	return actInRun("argocd "+rel.String()+" the release to uninstall from here", func(ctx context.Context) error {
		lifecycle.From(ctx).UpgradedItself(rel)
		return nil
	})
}

// ArgoCDManifest is rel's install.yaml as the suite installs it (offline,
// its images the ones the suite built under their upstream names), as the
// files of a repository: install.yaml.
func ArgoCDManifest(rel catalog.Release) fixture.Files {
	return func(ctx context.Context) (map[string]string, error) {
		path, err := lifecycle.From(ctx).Installer.Manifest(ctx, rel)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		return map[string]string{"install.yaml": string(data)}, nil
	}
}

// ArgoCDThroughOverlay applies the running release again through the team's
// kustomize overlay and waits for it: the release as the team runs it,
// before anything is checked on it. repro.sh installs the release plain (the
// overlay is not in its bundle).
func ArgoCDThroughOverlay(rel catalog.Release, o argocd.Overlay) step.Step {
	return actInRun("argocd "+rel.String()+" through the overlay "+o.Dir, func(ctx context.Context) error {
		if err := lifecycle.From(ctx).Installer.InstallOverlay(ctx, rel, o); err != nil {
			return err
		}
		lifecycle.Note(ctx, "argocd %s applied again through the overlay %s (%s in place of %s)", rel, o.Dir, argocd.OverlayInstall, strings.Join(o.Entries, ", "))
		return nil
	})
}

// UpgradeArgoCDOverlay upgrades ArgoCD in place to rel through the team's
// kustomize overlay (argocd.Kustomize); an overlay that does not build
// over rel's manifests, or manifests the API server refuses, go to refused.
func UpgradeArgoCDOverlay(rel catalog.Release, o argocd.Overlay, refused func(ctx context.Context, err *argocd.ApplyError)) step.Step {
	return actInRun("upgrade argocd to "+rel.String()+" in place (through the overlay "+o.Dir+")", func(ctx context.Context) error {
		r := lifecycle.From(ctx)
		lifecycle.Note(ctx, "argocd %s -> %s: upgrading in place with %s (METHOD=kustomize, OVERLAY=%s)", r.ArgoCD, rel, argocd.Kustomize.Command(), o.Dir)
		if err := r.ProvideArgoCD(ctx, rel); err != nil {
			return err
		}
		return refusedTo(ctx, rel, r.ApplyArgoCDOverlay(ctx, rel, o), refused)
	})
}
