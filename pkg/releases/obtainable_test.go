package releases

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// The one answer: online every release, offline a release before
// argocd.sources.from from its module zip, and from it on only with its tree
// where ARGOCD_SOURCES points; else one sentence, without the tag, saying
// what to provide.
func TestObtainable(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	release := catalog.MustRelease
	const rest = " build from a source tree of the tag, as the module zip lacks the nested gitops-engine module and go.mod pins no tagged version of it, and %s: " +
		"put argo-cd-<tag>/ (a checkout holding gitops-engine/go.mod) or argo-cd-<tag>.tar.gz in the directory ARGOCD_SOURCES names, or run online (MODE=online)"
	sentence := func(state string) string {
		return "offline, ArgoCD " + cat.ArgoCD.Sources.From + " up to (not including) " + cat.ArgoCD.Sources.Until + strings.Replace(rest, "%s", state, 1)
	}
	t.Setenv("ARGOCD_SOURCES", "")
	for _, tt := range []struct {
		rel  string
		mode images.Mode
	}{{"v3.5.1", images.Online}, {"v2.14.11", images.Offline}, {"v3.6.1", images.Offline}} {
		if tree, err := Obtainable(cat, release(tt.rel), tt.mode, repo); tree != "" || err != nil {
			t.Errorf("%s %s: %q, %v; want nothing to provide", tt.rel, tt.mode, tree, err)
		}
	}
	dir := filepath.Join(repo, "sources")
	for _, tt := range []struct{ env, want string }{
		{"", sentence("ARGOCD_SOURCES is not set")},
		{"sources", sentence("ARGOCD_SOURCES=" + dir + " does not exist")}, // relative: from the checkout
		{dir, sentence("ARGOCD_SOURCES=" + dir + " does not exist")},
	} {
		t.Setenv("ARGOCD_SOURCES", tt.env)
		_, err := Obtainable(cat, release("v3.5.1"), images.Offline, repo)
		var missing *sources.Missing
		if !errors.As(err, &missing) || missing.Why != tt.want {
			t.Errorf("ARGOCD_SOURCES=%q:\n got %v\nwant %s", tt.env, err, tt.want)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "argo-cd-v3.5.1", "gitops-engine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Obtainable(cat, release("v3.5.1"), images.Offline, repo); err == nil || err.Error() != sentence("ARGOCD_SOURCES="+dir+" holds none for it") {
		t.Errorf("a checkout without gitops-engine/go.mod: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "argo-cd-v3.5.1", "gitops-engine", "go.mod"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := Obtainable(cat, release("v3.5.1"), images.Offline, repo)
	if err != nil || tree != "ARGOCD_SOURCES="+dir+" (directory "+filepath.Join(dir, "argo-cd-v3.5.1")+")" {
		t.Errorf("the checkout: %q, %v", tree, err)
	}
	if _, err := Obtainable(cat, release("v3.4.7"), images.Offline, repo); err == nil || strings.Contains(err.Error(), "v3.4.7") || strings.Contains(err.Error(), "\n") {
		t.Errorf("another tag: want one line naming no tag, got %v", err)
	}
}
