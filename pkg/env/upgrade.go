package env

import (
	"context"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
)

// UpgradeArgoCD upgrades the installed ArgoCD to tag in place, the way a
// user does: Applications and their running operations stay. The next cell
// installs its own release again.
func UpgradeArgoCD(tag string) features.Func {
	return assert.Step("upgrade argocd to "+tag, func(ctx context.Context) error {
		r := From(ctx)
		observe(ctx, "argocd %s -> %s: upgrading in place", r.ArgoCD, tag)
		return r.UpgradeArgoCD(ctx, tag)
	})
}
