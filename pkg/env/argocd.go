package env

import (
	"context"

	"github.com/gitops-conformance/suite/pkg/catalog"
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
