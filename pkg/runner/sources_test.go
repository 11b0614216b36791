package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/pkg/sources/sourcestest"
)

// An ArgoCD release whose module zip does not build is refused offline,
// before anything starts, with one line naming ARGOCD_SOURCES and where it
// looked, unless a tree of the tag is there; online nothing is asked.
func TestSourcesAreCheckedBeforeAnythingStarts(t *testing.T) {
	release := catalog.MustRelease
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	cells := []matrix.Cell{{ArgoCD: release("v2.14.11"), Upgrades: []catalog.Release{release("v3.5.1")}}, {ArgoCD: release("v3.4.7")}}
	ctx := context.Background()
	offline := func(context.Context, string) error { return errors.New("no route to host") }
	online := func(context.Context, string) error { return nil }
	repo := t.TempDir()
	named := []string{"v2.14.11", "v3.5.1", "v3.4.7"} // the user's ARGOCD=
	t.Setenv(argocd.SourcesEnv, "")
	for _, mode := range []images.Mode{images.Offline, images.Auto} {
		err := sourcesProvided(ctx, cat, cells, named, mode, "", repo, offline)
		if err == nil || !strings.Contains(err.Error(), argocd.SourcesEnv+" is not set") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s, unset: want one line naming %s, got %v", mode, argocd.SourcesEnv, err)
		}
	}
	for name, check := range map[string]func() error{
		"online":              func() error { return sourcesProvided(ctx, cat, cells, named, images.Online, "", repo, offline) },
		"auto, registries up": func() error { return sourcesProvided(ctx, cat, cells, named, images.Auto, "", repo, online) },
		"a registry mirror": func() error {
			return sourcesProvided(ctx, cat, cells, named, images.Auto, "mirror:5000", repo, offline)
		},
		"no release from tree": func() error {
			return sourcesProvided(ctx, cat, []matrix.Cell{{ArgoCD: release("v2.14.11")}}, named, images.Offline, "", repo, offline)
		},
	} {
		if err := check(); err != nil {
			t.Errorf("%s: nothing to ask, got %v", name, err)
		}
	}
	dir := filepath.Join(repo, "sources")
	if err := os.MkdirAll(filepath.Join(dir, "argo-cd-v3.4.7", "gitops-engine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "argo-cd-v3.4.7", "gitops-engine", "go.mod"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(argocd.SourcesEnv, "sources") // relative: from the checkout
	err = sourcesProvided(ctx, cat, cells, named, images.Offline, "", repo, offline)
	if err == nil || !strings.HasPrefix(err.Error(), `argocd "v3.5.1": `) || !strings.Contains(err.Error(), argocd.SourcesEnv+"="+dir+" holds none") || !strings.Contains(err.Error(), "argo-cd-<tag>.tar.gz") {
		t.Errorf("the upgrade target's tree missing: want its tag, the path looked at and what to provide, got %v", err)
	}
	sourcestest.Archive(t, filepath.Join(dir, "argo-cd-v3.5.1.tar.gz"), "", map[string]string{"argo-cd-v3.5.1/gitops-engine/go.mod": ""})
	if err := sourcesProvided(ctx, cat, cells, named, images.Offline, "", repo, offline); err != nil {
		t.Errorf("a checkout of one tag and an archive of the other: %v", err)
	}
}

// A release the user did not name (a tier's default) whose tree is not
// provided is no refusal: its cells are marked SKIPPED with the line that
// says what to provide, and the others run.
func TestUnnamedReleaseWithoutSourcesIsSkipped(t *testing.T) {
	release := catalog.MustRelease
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	cells := []matrix.Cell{{ArgoCD: release("v2.14.11")}, {ArgoCD: release("v3.5.1")}, {ArgoCD: release("v2.14.3"), Upgrades: []catalog.Release{release("v3.4.7")}}}
	t.Setenv(argocd.SourcesEnv, "")
	offline := func(context.Context, string) error { return errors.New("no route to host") }
	if err := sourcesProvided(context.Background(), cat, cells, nil, images.Offline, "", t.TempDir(), offline); err != nil {
		t.Fatalf("nothing named: no refusal, got %v", err)
	}
	if cells[0].Skip != "" {
		t.Errorf("v2.14.11 builds from its module zip: skipped %q", cells[0].Skip)
	}
	for _, c := range cells[1:] {
		if !strings.Contains(c.Skip, argocd.SourcesEnv) || strings.Contains(c.Skip, "\n") {
			t.Errorf("%s (upgrades %v): want one line naming %s, got %q", c.ArgoCD, c.Upgrades, argocd.SourcesEnv, c.Skip)
		}
	}
	if err := sourcesProvided(context.Background(), cat, cells[1:2], []string{"v3.5.1"}, images.Offline, "", t.TempDir(), offline); err == nil {
		t.Error("v3.5.1 named without its tree: want a refusal")
	}
}

// The report records every release of the plan, upgrade targets too, as the
// listing makes it stand.
func TestSupportOfMarksEveryReleaseOfThePlan(t *testing.T) {
	release := catalog.MustRelease
	cells := []matrix.Cell{{ArgoCD: release("v2.14.11"), Upgrades: []catalog.Release{release("v3.5.1")}}}
	s := SupportOf(catalog.Support{Lines: []catalog.Line{{Major: 3, Minor: 5, Newest: "v3.5.7"}}}, cells)
	if s.Releases["v2.14.11"] != catalog.EndOfLife || s.Releases["v3.5.1"] != catalog.Supported || s.Lines[0] != "3.5 (newest v3.5.7)" {
		t.Errorf("SupportOf = %+v", s)
	}
	if s := SupportOf(catalog.Support{Why: "403"}, cells); s.Releases["v3.5.1"] != catalog.CouldNotTell || s.Why != "403" {
		t.Errorf("could not tell: %+v", s)
	}
}

// A bisect offline leaves out, with the one reason, the releases built from
// a source tree that ARGOCD_SOURCES does not hold; online it asks nothing.
func TestBisectProbeAsksForTheTree(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	sourcestest.Archive(t, filepath.Join(repo, "argo-cd-v3.4.7.tar.gz"), "", map[string]string{"argo-cd-v3.4.7/gitops-engine/go.mod": ""})
	t.Setenv(argocd.SourcesEnv, repo)
	r := &Runner{Run: &lifecycle.Run{Repo: repo, Mode: images.Offline, Catalog: cat}}
	if err := r.treeProvided(catalog.MustRelease("v3.4.7")); err != nil {
		t.Errorf("v3.4.7's archive is there: %v", err)
	}
	if err := r.treeProvided(catalog.MustRelease("v2.14.11")); err != nil {
		t.Errorf("v2.14.11 builds from its module zip: %v", err)
	}
	// the reason names no tag: a range's releases without a tree share it
	if err := r.treeProvided(catalog.MustRelease("v3.4.6")); err == nil || !strings.Contains(err.Error(), "ARGOCD_SOURCES="+repo+" holds none for it") || strings.Contains(err.Error(), "v3.4.6") {
		t.Errorf("v3.4.6 has no tree here: %v", err)
	}
	r.Run.Mode = images.Online
	if err := r.treeProvided(catalog.MustRelease("v3.3.0")); err != nil {
		t.Errorf("online the upstream images serve: %v", err)
	}
}

// The trees a build reads (argocd.Sources) are the ones the catalog names,
// which releases.Obtainable looks for.
func TestArgoCDSourcesAreTheCatalogs(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := sources.TreesOf(cat.ArgoCD.Sources); got != argocd.Sources || argocd.SourcesEnv != got.Env {
		t.Errorf("catalog argocd.sources gives %+v, the build reads %+v (%s)", got, argocd.Sources, argocd.SourcesEnv)
	}
}

// Only an offline build from the module zip needs the proxy's go.mod: a
// release the proxy lists and whose go.mod it refuses is had from its tree,
// or pulled online.
func TestGoModNeededOnlyForAModuleZipBuild(t *testing.T) {
	for _, tc := range []struct {
		tag  string
		mode images.Mode
		want bool
	}{
		{"v2.14.11", images.Offline, true},
		{"v2.14.11", images.Online, false},
		{"v3.4.1", images.Offline, false},
		{"v3.3.11", images.Online, false},
	} {
		if got := goModNeeded(catalog.MustRelease(tc.tag), tc.mode); got != tc.want {
			t.Errorf("%s %s: goModNeeded %v, want %v", tc.tag, tc.mode, got, tc.want)
		}
	}
}

// A cell the plan skipped (no source tree for its release) is reported
// SKIPPED and fails nothing, whatever its expectation; one skipped while
// it ran still needs a look.
func TestPlannedSkipIsNotUnexpected(t *testing.T) {
	planned := report.Cell{Expected: report.Reproduced, Runs: []report.Run{{Outcome: report.Skipped, Reason: "no tree"}}}
	settle(&planned, "argocd \"v3.5.1\": ... ARGOCD_SOURCES is not set")
	if planned.Unexpected || planned.NeedsLook() {
		t.Errorf("planned skip: %+v", planned)
	}
	during := report.Cell{Expected: report.Reproduced, Runs: []report.Run{{Outcome: report.Skipped, Reason: "input missing"}}}
	settle(&during, "")
	if !during.Unexpected {
		t.Errorf("a skip while running: %+v", during)
	}
}
