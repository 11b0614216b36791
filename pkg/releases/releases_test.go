package releases

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/schedule"
	"github.com/gitops-conformance/suite/pkg/sources/sourcestest"
)

// proxy is a module proxy as this machine's behaves: short lists, some
// refused, exact versions served that the list leaves out, and 403 for
// what it has not got.
type proxy struct {
	lists  map[string][]string // module: its /@v/list; missing: refused
	tags   map[string][]string // module: its repository's tags; missing: unreachable
	served map[string]bool     // module@version it serves
	gone   map[string]bool     // module@version it says was never published
	mods   map[string]string   // module@version: its go.mod; missing: a go.mod without nested modules
	mu     sync.Mutex
	asked  []string
}

func (p *proxy) Versions(_ context.Context, module string) ([]string, error) {
	if vs, ok := p.lists[module]; ok {
		return vs, nil
	}
	return nil, errors.New("403 Forbidden (This module version is not available.)")
}

func (p *proxy) Tags(_ context.Context, module string) ([]string, error) {
	if vs, ok := p.tags[module]; ok {
		return vs, nil
	}
	return nil, errors.New("git (Could not resolve host)")
}

func (p *proxy) Lookup(_ context.Context, module, version string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, module+"@"+version)
	switch {
	case p.served[module+"@"+version]:
		return nil
	case p.gone[module+"@"+version]:
		return fmt.Errorf("%s@%s: %w (404 Not Found)", module, version, ErrNotPublished)
	}
	return errors.New("403 Forbidden (This module version is not available.)")
}

func (p *proxy) GoMod(_ context.Context, module, version string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, module+"@"+version+" go.mod")
	if !p.served[module+"@"+version] && p.lists[module] == nil {
		return nil, errors.New("403 Forbidden (This module version is not available.)")
	}
	if mod, ok := p.mods[module+"@"+version]; ok {
		return []byte(mod), nil
	}
	return []byte("module " + module + "\n\ngo 1.24.0\n"), nil
}

const testCatalog = `
kind: v0.27.0
kubernetes: {default: v1.33.13, versions: [{version: v1.33.13, etcd: v3.5.24, coredns: v1.12.0, onlineNodeImage: kindest/node:v1.33.1}]}
argocd:
  default: [v2.14.11]
  smoke: v2.14.11
  modules: {v2: example.com/argo-cd/v2, v3: example.com/argo-cd/v3}
  sources: {env: ARGOCD_SOURCES, tree: argo-cd, marker: gitops-engine/go.mod, from: v3.3.0}
  supportedLines: 3
components:
  lib:
    module: example.com/lib
    versions: [v1.2.0]
  tree:
    module: example.com/tree
    versions: [v0.9.0]
    sources: {env: TREE_SOURCES, tree: tree, marker: go.mod}
    onlineURL: oci://example.com/charts/tree
`

const testMatrix = `
scenarios:
  - name: lib-argocd
    component: lib
    seconds: 60
    variants:
      - {name: bug, componentVersion: v1.2.0}
      - {name: fix, componentVersion: v1.2.0, mitigation: true}
      - {name: minimal}
  - name: tree-argocd
    component: tree
    argocd: [v2.14.11]
    seconds: 120
    variants:
      - {name: bug, componentVersions: [v0.9.0]}
expectations:
  - {scenario: lib-argocd, variant: bug, argocd: v2.14.11, kubernetes: v1.33.13, componentVersion: v1.2.0, offline: true, expected: REPRODUCED, runs: [20261122-081801]}
`

func testFinder(t *testing.T, mode images.Mode, p *proxy, env map[string]string) (*Finder, *catalog.Catalog, *matrix.Data) {
	t.Helper()
	cat, err := catalog.Parse([]byte(testCatalog))
	if err != nil {
		t.Fatal(err)
	}
	data, err := matrix.Parse([]byte(testMatrix))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat.AllSources() { // the Makefile's defaults left out
		t.Setenv(s.Env, env[s.Env])
	}
	return &Finder{Catalog: cat, Matrix: data, Source: p, Mode: mode, Repo: t.TempDir()}, cat, data
}

// served marks module@version for each version.
func served(m map[string]bool, module string, versions ...string) {
	for _, v := range versions {
		m[module+"@"+v] = true
	}
}

func thisMachine() *proxy {
	p := &proxy{
		lists: map[string][]string{
			"example.com/argo-cd/v2": {"v2.13.3", "v2.14.11"},
			// v3.4.1 and v3.6.2 left out of the list, a pre-release in it
			"example.com/argo-cd/v3": {"v3.1.0", "v3.2.0", "v3.3.0", "v3.4.0", "v3.4.2", "v3.5.0", "v3.6.0", "v3.6.1", "v3.7.0-rc1", "v3.2.1-0.20251204213410-5fbd94e8a6d7"},
			"example.com/lib":        {"v1.2.0", "v1.3.0"},
		},
		tags:   map[string][]string{},
		served: map[string]bool{},
		gone:   map[string]bool{},
	}
	served(p.served, "example.com/argo-cd/v2", "v2.14.11")
	served(p.served, "example.com/argo-cd/v3", "v3.4.1", "v3.6.2")
	served(p.served, "example.com/lib", "v1.3.1")
	p.gone["example.com/argo-cd/v3@v3.4.3"] = true
	return p
}

func TestFindReadsTheSupportedLinesAndNewestReleases(t *testing.T) {
	p := thisMachine()
	sources := t.TempDir()
	if err := os.MkdirAll(filepath.Join(sources, "argo-cd-v3.5.0", "gitops-engine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sources, "argo-cd-v3.5.0", "gitops-engine", "go.mod"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sourcestest.Archive(t, filepath.Join(sources, "argo-cd-v3.4.2.tar.gz"), "", map[string]string{"argo-cd-v3.4.2/gitops-engine/go.mod": ""})
	// named for the tag, without the nested module: no tree
	sourcestest.Archive(t, filepath.Join(sources, "argo-cd-v3.4.1.tar.gz"), "", map[string]string{"argo-cd-v3.4.1/go.mod": ""})
	f, _, _ := testFinder(t, images.Offline, p, map[string]string{"ARGOCD_SOURCES": sources})
	r, err := f.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// the three newest minor lines with a release: 3.7 has only a release candidate
	if got := strings.Join(r.ArgoCD.Supported, " "); got != "3.6 3.5 3.4" {
		t.Errorf("supported = %s, want 3.6 3.5 3.4", got)
	}
	lines := map[string]Line{}
	for _, l := range r.ArgoCD.Lines {
		lines[l.Line] = l
	}
	// v3.6.2 is not listed but served: walked to; v3.4.1 fills a gap in the list
	if l := lines["3.6"]; l.Newest != "v3.6.2" || l.NewestObtainable != "" {
		t.Errorf("3.6: newest %s, here %q; want v3.6.2 and none (no source tree offline)", l.Newest, l.NewestObtainable)
	}
	if got := versionsOf(lines["3.4"].Releases); fmt.Sprint(got) != "[v3.4.0 v3.4.1 v3.4.2]" {
		t.Errorf("3.4 releases = %v, want v3.4.0 v3.4.1 v3.4.2 (v3.4.3 never published)", got)
	}
	if l := lines["3.4"]; l.NewestObtainable != "v3.4.2" || !l.Releases[2].Obtainable || !strings.Contains(l.Releases[2].How, "(archive argo-cd-v3.4.2.tar.gz, at argo-cd-v3.4.2)") ||
		l.Releases[1].Obtainable || !strings.Contains(l.Releases[1].How, "ARGOCD_SOURCES="+sources+" holds none for it") {
		t.Errorf("3.4: %+v, want v3.4.2 from its archive, v3.4.1 not (its archive lacks gitops-engine/go.mod)", l)
	}
	if l := lines["3.5"]; l.NewestObtainable != "v3.5.0" || !strings.Contains(l.Releases[0].How, "argo-cd-v3.5.0") {
		t.Errorf("3.5: %+v, want v3.5.0 from its checkout", l)
	}
	for _, rel := range lines["3.6"].Releases {
		if rel.Obtainable || !strings.Contains(rel.How, "ARGOCD_SOURCES="+sources) {
			t.Errorf("3.6 %s offline: %+v, want not obtainable, naming ARGOCD_SOURCES", rel.Version, rel)
		}
	}
	// the seed is served by an exact lookup though the v2 list is short of nothing here
	if s := r.ArgoCD.Seeds; len(s) != 1 || s[0].Version != "v2.14.11" || !s[0].Obtainable {
		t.Errorf("seeds = %+v", s)
	}
	comps := map[string]Component{}
	for _, c := range r.Components {
		comps[c.Name] = c
	}
	// lib: listed v1.3.0, walked to v1.3.1 (served, not listed)
	if c := comps["lib"]; c.Newest.Version != "v1.3.1" || c.NewestObtainable != "v1.3.1" || c.Newest.Found != FoundLookup {
		t.Errorf("lib: %+v", c)
	}
	// tree: offline it needs TREE_SOURCES, which is not set
	if c := comps["tree"]; c.NewestObtainable != "" || c.Pins[0].Obtainable || !strings.Contains(c.Pins[0].How, "comes from TREE_SOURCES, which is not set") {
		t.Errorf("tree: %+v", c)
	}
}

func TestFindOnlineReadsTheRepositoriesWhereTheProxyLags(t *testing.T) {
	p := thisMachine()
	p.tags["example.com/lib"] = []string{"v1.2.0", "v1.3.0", "v1.3.1", "v1.4.0", "v1.4.0-rc.1"}
	p.tags["example.com/tree"] = []string{"v0.9.0", "v0.10.0"}
	f, _, _ := testFinder(t, images.Online, p, nil)
	r, err := f.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	comps := map[string]Component{}
	for _, c := range r.Components {
		comps[c.Name] = c
	}
	// v1.4.0 is tagged but the proxy does not serve it (its files come from
	// the module zip): the newest it can run is v1.3.1
	if c := comps["lib"]; c.Newest.Version != "v1.4.0" || c.Newest.Found != FoundTags || c.Newest.Obtainable || c.NewestObtainable != "v1.3.1" {
		t.Errorf("lib online: %+v", c)
	}
	// tree online: its chart and images come from upstream, a tag suffices
	if c := comps["tree"]; c.NewestObtainable != "v0.10.0" {
		t.Errorf("tree online: %+v", c)
	}
	for _, l := range r.ArgoCD.Lines {
		if l.NewestObtainable != l.Newest {
			t.Errorf("online %s: newest %s, here %s: the proxy serves it", l.Line, l.Newest, l.NewestObtainable)
		}
	}
}

func TestFindCannotTellTheSupportedLinesWithoutAListing(t *testing.T) {
	for name, refused := range map[string][]string{
		"no listing":             {"example.com/argo-cd/v3", "example.com/argo-cd/v2"},
		"the newest major's not": {"example.com/argo-cd/v3"}, // v2's lines would be taken for the newest
	} {
		p := thisMachine()
		p.lists["example.com/argo-cd/v2"] = []string{"v2.12.0", "v2.13.3", "v2.14.11"} // three lines
		for _, m := range refused {
			delete(p.lists, m)
		}
		f, _, _ := testFinder(t, images.Online, p, nil)
		r, err := f.Find(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(r.ArgoCD.Supported) != 0 || len(r.Problems) == 0 || !strings.Contains(r.Text(), "could not tell") {
			t.Errorf("%s: supported %v, problems %v: want none and a problem said", name, r.ArgoCD.Supported, r.Problems)
		}
	}
}

func TestPlanTiers(t *testing.T) {
	p := thisMachine()
	f, cat, data := testFinder(t, images.Online, p, nil)
	r, err := f.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Plan(cat, data, schedule.ReadCosts(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	byID := map[string]Shard{}
	var ids []string
	for _, sh := range r.Shards {
		byID[sh.ID] = sh
		ids = append(ids, sh.ID)
	}
	// lib-argocd: full on its seed and each line's newest, minimal on the other patches
	want := []string{
		"lib-argocd-v2.14.11-full",
		"lib-argocd-v3.4.0-minimal", "lib-argocd-v3.4.1-minimal", "lib-argocd-v3.4.2-full",
		"lib-argocd-v3.5.0-full",
		"lib-argocd-v3.6.0-minimal", "lib-argocd-v3.6.1-minimal", "lib-argocd-v3.6.2-full",
		"tree-argocd-v2.14.11-full", "tree-argocd-v3.4.2-full", "tree-argocd-v3.5.0-full", "tree-argocd-v3.6.2-full",
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("shards:\n  %s\nwant\n  %s", strings.Join(ids, "\n  "), strings.Join(want, "\n  "))
	}
	// a full shard: the pinned cells and every variant that installs the
	// component on its newest release, minimal once
	sh := byID["lib-argocd-v3.6.2-full"]
	if sh.ComponentVersion != "v1.2.0,v1.3.1" || sh.Cells != "lib-argocd_bug_v3.6.2_v1.2.0_k8s-v1.33.13,lib-argocd_fix_v3.6.2_v1.2.0_k8s-v1.33.13,lib-argocd_minimal_v3.6.2_k8s-v1.33.13,lib-argocd_bug_v3.6.2_v1.3.1_k8s-v1.33.13,lib-argocd_fix_v3.6.2_v1.3.1_k8s-v1.33.13" {
		t.Errorf("full shard: versions %q, cells %q", sh.ComponentVersion, sh.Cells)
	}
	if sh.CellCount != 5 || sh.Unmeasured != 5 || !sh.Supported || sh.Seed {
		t.Errorf("full shard: %+v", sh)
	}
	// 5 cells x 60 s and the setup, twice: 20 min
	if sh.Seconds != 300 || sh.E2EMinutes != 20 || sh.JobMinutes != 40 {
		t.Errorf("full shard estimate: %d s, e2e %d min, job %d min", sh.Seconds, sh.E2EMinutes, sh.JobMinutes)
	}
	// the seed: measured online nowhere (the expectation is offline)
	if sh := byID["lib-argocd-v2.14.11-full"]; !sh.Seed || sh.Supported || sh.CellCount != 5 {
		t.Errorf("seed shard: %+v", sh)
	}
	if sh := byID["lib-argocd-v3.4.1-minimal"]; sh.Variant != "minimal" || sh.CellCount != 1 || sh.Cells != "" || sh.ComponentVersion != "" {
		t.Errorf("minimal shard: %+v", sh)
	}
	if r.Tiers[0].Name != TierFull || r.Tiers[0].Shards != 8 || r.Tiers[1].Shards != 4 || r.Tiers[1].Cells != 4 {
		t.Errorf("tiers: %+v", r.Tiers)
	}
}

func TestPlanListsWhatTheModeCannotRun(t *testing.T) {
	p := thisMachine()
	f, cat, data := testFinder(t, images.Offline, p, map[string]string{"ARGOCD_SOURCES": t.TempDir()})
	r, err := f.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Plan(cat, data, schedule.ReadCosts(t.TempDir())); err != nil {
		t.Fatal(err)
	}
	// offline, no source trees: only the seeds run
	for _, sh := range r.Shards {
		if !sh.Seed {
			t.Errorf("offline without source trees, shard %s planned", sh.ID)
		}
	}
	text := r.Text()
	for _, want := range []string{"ArgoCD v3.6.2 (every scenario)", "ArgoCD v3.4.0 (minimal variants)",
		"v3.4.2 (every scenario): offline, ArgoCD v3.3.0 and later build from a source tree of the tag, as the module zip lacks the nested gitops-engine module and go.mod pins no tagged version of it, and ARGOCD_SOURCES=",
		"tree v0.9.0 (pin; its cells run SKIPPED): offline, tree's source tree at v0.9.0 comes from TREE_SOURCES, which is not set"} {
		if !strings.Contains(text, want) {
			t.Errorf("the table does not say %q:\n%s", want, text)
		}
	}
}

func TestFindSaysWhyACatalogedReleaseIsNotObtainable(t *testing.T) {
	p := thisMachine()
	f, _, _ := testFinder(t, images.Offline, p, nil)
	cat, err := catalog.Parse([]byte(strings.Replace(testCatalog, "    versions: [v1.2.0]\n",
		"    versions: [v1.2.0]\n    unobtainable: {v1.3.1: {why: \"its go.mod requires example.com/dep, which the proxy refuses\"}}\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	f.Catalog = cat
	r, err := f.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Components {
		if c.Name != "lib" {
			continue
		}
		// the module is served, what it needs is not: the next release down is the newest obtainable
		if c.Newest.Version != "v1.3.1" || c.Newest.Obtainable || !strings.Contains(c.Newest.How, "example.com/dep") || c.NewestObtainable != "v1.3.0" {
			t.Errorf("lib: %+v", c)
		}
	}
}

// A seed pin that only some variants have on their own ArgoCD axis (kargo's
// ArgoCD variants on v3.5.1) gives a full shard of those variants only; a
// release every variant runs on, all of them.
func TestVariantsOnATag(t *testing.T) {
	s := matrix.Scenario{ArgoCD: []string{"v2.14.11"}, Variants: []matrix.Variant{
		{Name: "bug"}, {Name: "prune", ArgoCD: []string{"v2.14.11", "v3.5.1"}}, {Name: "cascade", ArgoCD: []string{"v2.14.11", "v3.5.1"}}}}
	if got := variantsOn(s, "v2.14.11", nil); got != nil {
		t.Errorf("v2.14.11: %v, want every variant (nil)", got)
	}
	if got := strings.Join(variantsOn(s, "v3.5.1", nil), ","); got != "prune,cascade" {
		t.Errorf("v3.5.1: %q, want prune,cascade", got)
	}
}

// A version list with holes: the proxy lists v1.15.4 as the newest, refuses
// v1.15.5, v1.16.0 and v1.16.1, and serves v1.16.2 (Kube-OVN on 2026-11-26).
// The walk finds v1.16.2, and stops after two minors with nothing served.
func TestWalkPastRefusedReleases(t *testing.T) {
	p := &proxy{served: map[string]bool{"example.com/ovn@v1.16.2": true, "example.com/ovn@v1.16.4": true}}
	f := &Finder{Source: p}
	m := &module{path: "example.com/ovn", found: map[string]string{"v1.15.4": FoundList}, served: map[string]bool{"v1.15.4": true}, refused: map[string]string{}}
	f.walk(context.Background(), m, "v1.15.4", false)
	if newest(m.found) != "v1.16.4" {
		t.Errorf("newest found %q, want v1.16.4 (past the refused v1.15.5, v1.16.0, v1.16.1 and v1.16.3); lookups %v", newest(m.found), m.lookups)
	}
	for _, v := range []string{"v1.17.3", "v1.18.3"} {
		if !slices.Contains(p.asked, "example.com/ovn@"+v) {
			t.Errorf("did not ask %s: two minors with nothing served end the walk, not one", v)
		}
	}
	if slices.Contains(p.asked, "example.com/ovn@v1.19.0") {
		t.Errorf("asked v1.19.0: past two minors with nothing served")
	}
	line := &module{path: "example.com/argo", found: map[string]string{"v3.4.7": FoundList}, served: map[string]bool{}, refused: map[string]string{}}
	p.served["example.com/argo@v3.4.9"] = true
	p.served["example.com/argo@v3.5.0"] = true
	f.walk(context.Background(), line, "v3.4.7", true)
	if newest(line.found) != "v3.4.9" {
		t.Errorf("a line's walk: newest %q, want v3.4.9 (its own minor only)", newest(line.found))
	}
}

// From argocd.sources.until on (3.6) a release builds offline from its two
// module zips when its go.mod requires the nested module at the release's
// own tag and the proxy serves it; the lines before say what their newest
// patch's go.mod pins and what the proxy answered for it.
func TestFindReadsTheNestedModulesOfEachLine(t *testing.T) {
	p := thisMachine()
	const engine, engineV3 = "example.com/argo-cd/gitops-engine", "example.com/argo-cd/gitops-engine/v3"
	nested := func(mod, version string) string {
		return "module example.com/argo-cd/v3\n\ngo 1.27.0\n\nrequire (\n\t" + mod + " " + version +
			" // Tagged as gitops-engine/vX.Y.Z at release time\n\tk8s.io/api v0.37.0\n)\n\nreplace k8s.io/api => k8s.io/api v0.37.0\n\nreplace " + mod + " => ./gitops-engine\n"
	}
	const pseudo = "v0.7.1-0.20250908182407-97ad5b59a627"
	p.mods = map[string]string{
		"example.com/argo-cd/v3@v3.6.0": nested(engineV3, "v3.6.0"),
		"example.com/argo-cd/v3@v3.6.1": nested(engineV3, "v3.6.1"),
		"example.com/argo-cd/v3@v3.6.2": nested(engineV3, "v3.6.2"),
		"example.com/argo-cd/v3@v3.5.0": nested(engine, pseudo),
		"example.com/argo-cd/v3@v3.4.2": nested(engine, pseudo),
	}
	served(p.served, engineV3, "v3.6.0", "v3.6.1") // not v3.6.2
	f, _, _ := testFinder(t, images.Offline, p, map[string]string{"ARGOCD_SOURCES": t.TempDir()})
	cat, err := catalog.Parse([]byte(strings.Replace(testCatalog, "from: v3.3.0}", "from: v3.3.0, until: v3.6.0}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	f.Catalog = cat
	r, err := f.Find(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	how := map[string]Release{}
	offline := map[string]string{}
	for _, l := range r.ArgoCD.Lines {
		offline[l.Line] = l.Offline
		for _, rel := range l.Releases {
			how[rel.Version] = rel
		}
	}
	if rel := how["v3.6.1"]; !rel.Obtainable || rel.How != "built from the module proxy's example.com/argo-cd/v3@v3.6.1 and "+engineV3+"@v3.6.1 as ./gitops-engine (the nested module tagged with the release)" {
		t.Errorf("v3.6.1: %+v", rel)
	}
	if rel := how["v3.6.2"]; rel.Obtainable || !strings.Contains(rel.How, "the module proxy does not serve "+engineV3+"@v3.6.2: 403 Forbidden") {
		t.Errorf("v3.6.2, its engine not served: %+v", rel)
	}
	if got := offline["3.6"]; !strings.HasPrefix(got, "v3.6.2: ") {
		t.Errorf("3.6 offline: %q", got)
	}
	want := "v3.5.0: example.com/argo-cd/v3@v3.5.0's go.mod replaces " + engine + " with ./gitops-engine (a nested module its zip leaves out) and pins " + pseudo +
		", not the release's tag (the module proxy: 403 Forbidden (This module version is not available.)): only a source tree of the tag builds it offline; online, or with a tree of the tag in ARGOCD_SOURCES"
	if got := offline["3.5"]; got != want {
		t.Errorf("3.5 offline:\n got %s\nwant %s", got, want)
	}
	if text := r.Text(); !strings.Contains(text, "  3.5 offline: "+want) {
		t.Errorf("make releases does not say it:\n%s", text)
	}
}

func TestNestedModules(t *testing.T) {
	gomod := `module example.com/argo-cd/v3

go 1.27.0

require (
	example.com/a v1.0.0
	example.com/argo-cd/gitops-engine/v3 v3.6.1 // Tagged as gitops-engine/vX.Y.Z at release time
)

require example.com/b v0.1.0 // indirect

exclude (
	example.com/c v0.0.1
)

replace (
	example.com/a => example.com/a v1.0.1
	example.com/b v0.1.0 => ../b
)

replace example.com/argo-cd/gitops-engine/v3 => ./gitops-engine
`
	got := NestedModules([]byte(gomod))
	want := []Nested{{Path: "example.com/b", Dir: "../b", Require: "v0.1.0"}, {Path: "example.com/argo-cd/gitops-engine/v3", Dir: "./gitops-engine", Require: "v3.6.1"}}
	if !slices.Equal(got, want) {
		t.Errorf("NestedModules = %+v, want %+v", got, want)
	}
	if got := NestedModules([]byte("module m\n\ngo 1.24\n")); len(got) != 0 {
		t.Errorf("no replaces: %+v", got)
	}
}
