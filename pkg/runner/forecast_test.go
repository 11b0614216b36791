package runner

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// The builds still needed must fit on the disk with a run's DiskMin beside
// them; a cached build takes nothing.
func TestFitsDisk(t *testing.T) {
	f := Forecast{Builds: []Build{{What: "node image v1.33.13", Disk: 10}, {What: "argocd v2.14.11", Disk: 5, Present: true}}}
	if f.Disk() != 10 {
		t.Fatalf("Disk = %v, want 10 (the cached build takes nothing)", f.Disk())
	}
	if err := f.FitsDisk(15<<30, "/var/lib/docker"); err != nil {
		t.Errorf("15 GiB free for 10 + 4: %v", err)
	}
	err := f.FitsDisk(12<<30, "/var/lib/docker")
	if err == nil || !strings.Contains(err.Error(), "about 10 GiB") || !strings.Contains(err.Error(), "12.0 GiB is free on /var/lib/docker") {
		t.Errorf("12 GiB free for 10 + 4: %v", err)
	}
	if err := (Forecast{}).FitsDisk(0, "/"); err != nil {
		t.Errorf("nothing to build: %v", err)
	}
}

// The node images and the prebuild (ArgoCD releases and component images,
// one after the other) build side by side; a cached build costs nothing.
func TestColdBuildsSideBySide(t *testing.T) {
	f := Forecast{Builds: []Build{
		{Recipe: images.NodeRecipe, Cost: 15 * time.Minute},
		{Recipe: "argocd", Cost: 10 * time.Minute},
		{Recipe: "argocd-tree", Cost: 9 * time.Minute},
		{Recipe: "knative", Cost: 3 * time.Minute},
		{Recipe: "kargo", Cost: 5 * time.Minute},
		{Recipe: "argocd", Cost: 10 * time.Minute, Present: true},
	}}
	if got, want := f.Cold()-f.Warm(), 27*time.Minute; got != want {
		t.Errorf("cold - warm = %s, want %s (max(15, 10+9+3+5))", got, want)
	}
}

// Every figure of coldcost.yaml is its benchmark's: the row it names, in
// the file it names, writes the same figure, and the seconds are that
// figure. A recipe without a benchmark says it is a guess.
func TestColdCostsAreTheBenchmarks(t *testing.T) {
	costs, machines, err := ColdCosts()
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range machines {
		if m.Measured != "" && !strings.Contains(m.Measured, "reports/benchmarks/") {
			t.Errorf("machine %s: its probe %vs measured %q, naming no benchmark", name, m.Probe, m.Measured)
		}
	}
	for _, recipe := range []string{images.NodeRecipe, "argocd", "argocd-tree", "knative", "openkruise", "kyverno", "kargo"} {
		if _, ok := costs[recipe]; !ok {
			t.Errorf("coldcost.yaml has no figure for the recipe %q", recipe)
		}
	}
	for recipe, c := range costs {
		if c.Measured == "" {
			if !strings.Contains(c.Source(), "not measured") {
				t.Errorf("%s: no measurement, and the plan would not say so: %q", recipe, c.Source())
			}
			continue
		}
		if !strings.HasPrefix(c.Benchmark, "reports/benchmarks/") || c.Row == "" || c.Figure == "" {
			t.Errorf("%s: measured %q without a benchmark row and figure", recipe, c.Measured)
			continue
		}
		data, err := os.ReadFile(filepath.Join("..", "..", c.Benchmark))
		if err != nil {
			t.Errorf("%s: %v", recipe, err)
			continue
		}
		var row string
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "| "+c.Row) {
				row = line
				break
			}
		}
		switch {
		case row == "":
			t.Errorf("%s: %s has no row starting %q", recipe, c.Benchmark, c.Row)
		case !strings.Contains(row, "| "+c.Figure+" |") && !strings.Contains(row, " / "+c.Figure+" |"):
			t.Errorf("%s: %s's row says %q, not %q", recipe, c.Benchmark, row, c.Figure)
		}
		if d, err := figure(c.Figure); err != nil || d != c.Cost() {
			t.Errorf("%s: the figure %q is %s (%v), the seconds %s", recipe, c.Figure, d, err, c.Cost())
		}
		// a benchmark's file is named for its date: 2026-11-27-..., or as a
		// bench writes it, 20261129-183548-...
		date := filepath.Base(c.Benchmark)[:len("2006-01-02")]
		if day, err := time.Parse("20060102", date[:8]); err == nil {
			date = day.Format("2006-01-02")
		}
		if !strings.Contains(c.Source(), date) {
			t.Errorf("%s: the plan's %q does not date the benchmark %s", recipe, c.Source(), c.Benchmark)
		}
	}
}

// figure reads a benchmark's time as its rows write it: "13m35s", "403 s",
// "about 3 min".
func figure(s string) (time.Duration, error) {
	s = strings.TrimPrefix(s, "about ")
	switch {
	case strings.HasSuffix(s, " s"): // "403 s", or a benchmark's "812.3 s" (to the second)
		n, err := strconv.ParseFloat(strings.TrimSuffix(s, " s"), 64)
		return time.Duration(n * float64(time.Second)).Round(time.Second), err
	case strings.HasSuffix(s, " min"):
		n, err := strconv.Atoi(strings.TrimSuffix(s, " min"))
		return time.Duration(n) * time.Minute, err
	}
	return time.ParseDuration(s)
}

// The prebuild takes every build the plan's running cells need, in their
// order, each once: a cell's ArgoCD release (upgrade targets too), then its
// component's images, from a source tree the user provides too (kargo: it
// was built in its cell until 2026-11-29, and a run's other clusters waited
// 14 minutes for it, run 20261129-143749); the forecast prices the same
// builds beside the node image.
func TestPrebuildTakesEveryBuildBesideTheNodeImage(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	release := catalog.MustRelease
	k133 := catalog.KubeVersion{Version: "v1.33.13"}
	cell := func(scenario, component, version string, rel catalog.Release, upgrades ...catalog.Release) matrix.Cell {
		return matrix.Cell{Scenario: matrix.Scenario{Name: scenario, Component: component}, Variant: matrix.Variant{Name: "bug"},
			ArgoCD: rel, Upgrades: upgrades, ComponentVersion: version, Kubernetes: k133}
	}
	cells := []matrix.Cell{
		cell("knative-argocd", "knative-serving", "v0.47.1", release("v2.14.11")),
		cell("knative-argocd", "knative-serving", "v0.47.1", release("v3.5.1")),
		cell("knative-argocd", "", "", release("v3.5.1")), // minimal: no component
		cell("kargo-argocd", "kargo", "v1.11.2", release("v2.14.11"), release("v3.6.1")),
		cell("kubeovn-argocd", "kube-ovn", "v1.14.10", release("v3.6.1")), // no recipe: CRDs only
	}
	cells[4].Skip = "a planned skip"
	// make upgrade-check's cells: no component of the catalog's, the
	// cluster's metrics-server besides (matrix.Scenario.Builds)
	upgrade := cell("upgrade-check", "applications", "", release("v3.4.7"), release("v3.5.1"))
	upgrade.Scenario.Builds = []string{"metrics-server@v0.9.0"}
	cells = append(cells, upgrade, upgrade)
	// make conform on Kyverno's chart 3.4.0: the chart's version is not a
	// recipe's (run 20261129-073440 built kyverno "3.4.0" and failed); its
	// IMAGE_RECIPES are the scenario's Builds
	chart := cell("conform", "kyverno", "3.4.0", release("v2.14.11"))
	chart.Scenario.UserChart, chart.Scenario.Builds = true, []string{"kyverno@v1.14.0"}
	cells = append(cells, chart)
	var got []string
	for _, p := range prebuilds(cat, "../..", cells, images.Offline) {
		got = append(got, p.String())
	}
	want := []string{"ArgoCD v2.14.11", "knative v0.47.1", "ArgoCD v3.5.1", "ArgoCD v3.6.1", "kargo v1.11.2", "ArgoCD v3.4.7", "metrics-server v0.9.0", "kyverno v1.14.0"}
	if !slices.Equal(got, want) {
		t.Errorf("prebuild %q, want %q", got, want)
	}
	if p := prebuilds(cat, "../..", cells, images.Online); len(p) != len(want) {
		t.Errorf("online the prebuild list is the same (lifecycle.Run.Prebuild builds nothing then): %v", p)
	}
	var beside []string
	for _, b := range ColdBuilds(cat, cells, "../..") {
		if b.Recipe != images.NodeRecipe {
			beside = append(beside, b.What)
		}
		if b.Measured || b.Source == "" {
			t.Errorf("%s on a new machine: measured here %v, source %q", b.What, b.Measured, b.Source)
		}
	}
	if len(beside) != len(want) {
		t.Errorf("the forecast prices %q beside the node image, the prebuild builds %q", beside, want)
	}
}

// A figure of coldcost.yaml, measured on another machine, is scaled by the
// two machines' probes for a build this machine still needs; a build this
// machine's ledger measured is priced as measured, and the docs' figures
// (ColdBuilds) are the file's as written.
func TestColdFiguresScaledToThisMachine(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("GITOPS_CONFORMANCE_CACHE", cache)
	if err := os.MkdirAll(filepath.Join(cache, "built"), 0o755); err != nil {
		t.Fatal(err)
	}
	ledger := `{"recipe": "knative", "version": "v0.47.1", "seconds": 300}` // measured here, its images since removed
	if err := os.WriteFile(filepath.Join(cache, "built", "knative-v0.47.1.json"), []byte(ledger), 0o644); err != nil {
		t.Fatal(err)
	}
	there := coldMachines[coldCost["argocd"].Machine]
	probes := 0
	saved := probe
	probe = func() (time.Duration, float64) {
		probes++
		return time.Duration(there.Probe * 2.5 * float64(time.Second)), 0
	}
	t.Cleanup(func() { probe = saved })

	cell := matrix.Cell{Scenario: matrix.Scenario{Name: "knative-argocd", Component: "knative-serving"}, Variant: matrix.Variant{Name: "bug"},
		ArgoCD: catalog.MustRelease("v2.14.11"), ComponentVersion: "v0.47.1", Kubernetes: catalog.KubeVersion{Version: "v1.33.13"}}
	noSkip := func(matrix.Cell) string { return "" }
	for _, b := range builds(t.Context(), cat, []matrix.Cell{cell}, noSkip, "../..", true) {
		switch b.Recipe {
		case "argocd":
			want := time.Duration(float64(coldCost["argocd"].Cost()) * 2.5).Round(time.Second)
			if b.Cost != want || b.Speed == nil || !strings.Contains(b.Source, "x2.5 here") {
				t.Errorf("argocd v2.14.11, never built here: %s (%s), want %s, x2.5", b.Cost, b.Source, want)
			}
		case "knative":
			if b.Cost != 300*time.Second || b.Speed != nil || !b.Measured {
				t.Errorf("knative v0.47.1, measured here: %s (%s), want 5m0s as measured", b.Cost, b.Source)
			}
		}
	}
	if probes != 1 {
		t.Errorf("the machine probed %d times for one plan, want once", probes)
	}
	for _, b := range ColdBuilds(cat, []matrix.Cell{cell}, "../..") {
		if b.Speed != nil || b.Cost != coldCost[b.Recipe].Cost() {
			t.Errorf("the docs' %s: %s (%s), want coldcost.yaml's %s", b.What, b.Cost, b.Source, coldCost[b.Recipe].Cost())
		}
	}
}

// The docs quote every build on one machine: a figure measured on another
// (kyverno's, on 2026-11-29's, 2.57 times slower) is scaled to it, and says so.
func TestDocsQuoteOneMachine(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	cells := []matrix.Cell{{Scenario: matrix.Scenario{Name: "kyverno-argocd", Component: "kyverno"}, Variant: matrix.Variant{Name: "bug"},
		ArgoCD: catalog.MustRelease("v2.14.11"), ComponentVersion: "v1.14.0", Kubernetes: catalog.KubeVersion{Version: "v1.33.13"}}}
	ref := coldMachines[DocsMachine()]
	var seen bool
	for _, b := range ColdBuilds(cat, cells, "../..") {
		c := coldCost[b.Recipe]
		if c.Machine == ref.Name {
			if b.Cost != c.Cost() {
				t.Errorf("%s, measured on %s: %s, want %s", b.What, ref.Name, b.Cost, c.Cost())
			}
			continue
		}
		seen = true
		want := time.Duration(float64(c.Cost()) * ref.Probe / coldMachines[c.Machine].Probe).Round(time.Second)
		if b.Cost != want || !strings.Contains(b.Source, "on "+ref.Name+"'s machine") {
			t.Errorf("%s, measured on %s: %s (%s), want %s on %s's machine", b.What, c.Machine, b.Cost, b.Source, want, ref.Name)
		}
	}
	if !seen {
		t.Errorf("a kyverno cell built nothing measured on another machine than %s", ref.Name)
	}
}

// A probe taken on a busy machine says so beside its factor: it slows down
// far more than the builds it prices.
func TestSpeedSaysItsLoad(t *testing.T) {
	m := Machine{Name: "then", Probe: 0.2}
	busy, idle := against(time.Second, m), against(time.Second, m)
	busy.Load = 1000
	if s := busy.String(); !strings.Contains(s, "probed at load 1000.0") || !strings.Contains(s, "x5.0") {
		t.Errorf("busy: %s", s)
	}
	if s := idle.String(); strings.Contains(s, "load") {
		t.Errorf("idle (load not known): %s", s)
	}
}
