package releases

import (
	"errors"
	"fmt"
	"os"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Obtainable is the one answer to "can this ArgoCD release be had here, in
// this mode", from what this machine holds: nothing is downloaded, built or
// extracted. Online (any mode but images.Offline: a caller resolves Auto
// first) the upstream images serve every release. Offline a release builds
// from its module zip (from v3.6.0 with its nested gitops-engine's own zip,
// tagged with the release), except from the catalog's argocd.sources.from
// to before its until (catalog.Release.FromSources: the zip lacks the nested
// gitops-engine module and go.mod pins no tagged version of it), where it
// builds from a source tree of the tag in the directory
// ARGOCD_SOURCES names; tree then says where that is, "" for a release that
// needs none. Without the tree, err is a *sources.Missing whose Why is the
// one sentence every command says (make e2e, check, plan, bisect, releases,
// list), naming what to provide; it names no tag, so that a caller puts the
// tag before it and a bisect says it once for every tag it fits.
//
// Whether the module proxy serves the tag at all is another question, asked
// where a tag's existence matters (runner.ReleaseExists, bisect.Probe,
// Finder.Find).
func Obtainable(cat *catalog.Catalog, rel catalog.Release, mode images.Mode, repo string) (tree string, err error) {
	src := cat.ArgoCD.Sources
	if mode != images.Offline || !rel.FromSources() || src == nil {
		return "", nil
	}
	f, err := sources.TreesOf(src).Find(repo, rel.String())
	if err == nil {
		return f.From(src.Env), nil
	}
	if !errors.As(err, new(*sources.Missing)) {
		return "", err
	}
	state := src.Env + " is not set"
	if root := sources.EnvPath(src.Env, repo); root != "" {
		state = src.Env + "=" + root + " holds none for it"
		if _, serr := os.Stat(root); serr != nil {
			state = src.Env + "=" + root + " does not exist"
		}
	}
	return "", &sources.Missing{Why: fmt.Sprintf("offline, ArgoCD %s build from a source tree of the tag, as the module zip lacks the nested gitops-engine module and go.mod pins no tagged version of it, and %s: "+
		"put %s-<tag>/ (a checkout holding %s) or %[3]s-<tag>.tar.gz in the directory %[5]s names, or run online (MODE=online)",
		src.Span(), state, src.Tree, src.Marker, src.Env)}
}
