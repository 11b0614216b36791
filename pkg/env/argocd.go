package env

import (
	"context"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// InstallArgoCDRelease makes tag the installed release inside a feature (a
// fresh install unless it is installed already); cells get theirs from the runner.
func InstallArgoCDRelease(tag string) features.Func {
	return assert.Step("install argocd "+tag, func(ctx context.Context) error {
		if !call(ctx, "install argocd "+tag, "install_argocd", tag) {
			return nil
		}
		r := lifecycle.From(ctx)
		if err := r.InstallArgoCD(ctx, tag); err != nil {
			return err
		}
		v, err := r.Installer.RunningVersion(ctx)
		if err != nil {
			return err
		}
		lifecycle.Note(ctx, "argocd %s running, the API server reports %s", tag, v)
		return nil
	})
}

// UpgradeArgoCD upgrades the installed ArgoCD to tag in place, the way a
// user does: Applications and their running operations stay. The next cell
// installs its own release again.
func UpgradeArgoCD(tag string) features.Func {
	return assert.Step("upgrade argocd to "+tag, func(ctx context.Context) error {
		if !call(ctx, "upgrade argocd in place to "+tag, "install_argocd", tag) {
			return nil
		}
		r := lifecycle.From(ctx)
		lifecycle.Note(ctx, "argocd %s -> %s: upgrading in place", r.ArgoCD, tag)
		return r.UpgradeArgoCD(ctx, tag)
	})
}
