package runner

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/host"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/schedule"
)

// coldCostFile holds what each recipe's build takes the first time on a new
// machine, each figure with the benchmark row it was measured in
// (reports/benchmarks/); TestColdCostsAreTheBenchmarks holds the two together.
//
//go:embed coldcost.yaml
var coldCostFile []byte

// ColdCost is one recipe's build on a new machine, as coldcost.yaml records it.
type ColdCost struct {
	Recipe  string `json:"recipe"`
	Seconds int    `json:"seconds"`
	// Machine names the machine it was measured on (Machine).
	Machine string `json:"machine"`
	// Figure is the time as the benchmark's row writes it ("13m35s",
	// "403 s", "about 3 min"); Benchmark the file, Row the start of the row.
	Figure    string `json:"figure,omitempty"`
	Benchmark string `json:"benchmark,omitempty"`
	Row       string `json:"row,omitempty"`
	// Measured says where and when ("on a new machine, 2026-11-27, run
	// 20261127-123742"); "" for a recipe never timed alone, whose Guess
	// says what the figure is instead.
	Measured string `json:"measured"`
	Guess    string `json:"guess,omitempty"`
}

// Cost is the figure as a duration.
func (c ColdCost) Cost() time.Duration { return time.Duration(c.Seconds) * time.Second }

// Source is what the plan says of the figure: where it was measured, or
// that it is a guess.
func (c ColdCost) Source() string {
	if c.Measured == "" {
		return c.Guess
	}
	return "measured " + c.Measured
}

// Machine is a machine coldcost.yaml's figures were measured on, and its
// probe (host.Probe) there: measured, or inferred from another's, saying how.
type Machine struct {
	Name     string  `json:"name"`
	Probe    float64 `json:"probe"` // seconds
	Measured string  `json:"measured,omitempty"`
	Inferred string  `json:"inferred,omitempty"`
}

// ProbeTime is the machine's probe as a duration.
func (m Machine) ProbeTime() time.Duration { return time.Duration(m.Probe * float64(time.Second)) }

// ColdCosts reads coldcost.yaml: its figures by recipe, its machines by name.
func ColdCosts() (map[string]ColdCost, map[string]Machine, error) {
	var f struct {
		Machines []Machine  `json:"machines"`
		Builds   []ColdCost `json:"builds"`
	}
	if err := yaml.UnmarshalStrict(coldCostFile, &f); err != nil {
		return nil, nil, fmt.Errorf("pkg/runner/coldcost.yaml: %w", err)
	}
	machines := map[string]Machine{}
	for _, m := range f.Machines {
		if m.Name == "" || m.Probe <= 0 || (m.Measured == "") == (m.Inferred == "") {
			return nil, nil, fmt.Errorf("pkg/runner/coldcost.yaml: machine %q: want a name, its probe in seconds, and either measured or inferred", m.Name)
		}
		machines[m.Name] = m
	}
	out := map[string]ColdCost{}
	for _, c := range f.Builds {
		if c.Recipe == "" || c.Seconds <= 0 || (c.Measured == "") == (c.Guess == "") {
			return nil, nil, fmt.Errorf("pkg/runner/coldcost.yaml: recipe %q: want a recipe, seconds, and either measured or guess", c.Recipe)
		}
		if _, ok := machines[c.Machine]; !ok {
			return nil, nil, fmt.Errorf("pkg/runner/coldcost.yaml: recipe %q: machine %q is not among its machines", c.Recipe, c.Machine)
		}
		out[c.Recipe] = c
	}
	return out, machines, nil
}

// coldCost and coldMachines are coldcost.yaml, read once; the file is the
// binary's own, so a mistake in it is a build's (the test reads it too).
var coldCost, coldMachines = func() (map[string]ColdCost, map[string]Machine) {
	c, m, err := ColdCosts()
	if err != nil {
		panic(err)
	}
	return c, m
}()

// probe times this machine (host.Probe) and says its load then
// (host.Load); a variable for the tests.
var probe = func() (time.Duration, float64) {
	d := host.Probe()
	load, _ := host.Load()
	return d, load
}

// Speed is how this machine's probe compares with the machine a figure
// was measured on: Factor times as long (2.5: this machine builds 2.5
// times slower).
type Speed struct {
	Probe   time.Duration // this machine's, now
	Load    float64       // this machine's load average when it probed (0: not known)
	Machine Machine
	Factor  float64
}

// speedFor scales a figure measured on machine to this one, probing this
// machine once per run (about 1.1 s on the suite's 2-core machine, idle).
func speedFor(here *Speed, machine string) Speed {
	if here.Probe == 0 {
		here.Probe, here.Load = probe()
	}
	s := against(here.Probe, coldMachines[machine])
	s.Load = here.Load
	return s
}

// against is this machine's probe here set against machine m's.
func against(here time.Duration, m Machine) Speed {
	return Speed{Probe: here, Machine: m, Factor: here.Seconds() / m.Probe}
}

// Scale is what a build that took d on s.Machine takes where s.Probe was
// taken, to the second.
func (s Speed) Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * s.Factor).Round(time.Second)
}

// DocsMachine is the machine the docs' cold costs are quoted on
// (ColdBuilds): the one the node image's figure, the largest, was measured on.
func DocsMachine() string { return coldCost[images.NodeRecipe].Machine }

// Speeds is a probe of this machine against each machine coldcost.yaml's
// figures were measured on, by name.
func Speeds(here time.Duration) []Speed {
	var out []Speed
	for _, m := range coldMachines {
		out = append(out, against(here, m))
	}
	slices.SortFunc(out, func(a, b Speed) int { return strings.Compare(b.Machine.Name, a.Machine.Name) })
	return out
}

func (s Speed) String() string {
	how := "measured there"
	if s.Machine.Inferred != "" {
		how = "inferred"
	}
	out := fmt.Sprintf("%.3fs here, %s's %.3fs (%s): x%.1f", s.Probe.Seconds(), s.Machine.Name, s.Machine.Probe, how, s.Factor)
	if cores := runtime.NumCPU(); s.Load > float64(cores) {
		// 2026-11-29, load 12-47: the probe 5 to 13 times its idle figure, the kruise
		// v1.8.3 build 1461 s, 1.4 times its figure scaled to the idle probe (403 s x2.57;
		// reports/benchmarks/2026-11-29-probe.md)
		out += fmt.Sprintf("; probed at load %.1f on %d cores, so high: a busy machine's probe slows down far more than its builds do", s.Load, cores)
	}
	return out
}

// coldDisk is the disk a build takes the first time on a machine, in GiB:
// its images in Docker and what it leaves in Go's module and build caches.
// Measured together on a new machine (run 20261127-123742, knative's quick
// tier: node image, ArgoCD v2.14.11 from its zip, v3.5.1 from its tree,
// Knative v0.47.1): 27.6 GB at the peak, a cluster running, of which Go's
// caches 18 GiB and Docker 8.1 GiB; split by what each build compiles.
// kyverno, kargo and metrics-server measured alone (make bench-builds,
// reports/benchmarks/20261129-183548-builds.md and -190056-builds.md: Go's
// caches and the recipe's cache directory, and the images), rounded up;
// openkruise not measured alone: the size of its Go build, rounded up.
var coldDisk = map[string]float64{
	images.NodeRecipe: 9,
	"argocd":          5,
	"argocd-tree":     6,
	"knative":         3,
	"openkruise":      3, // not measured alone
	"kyverno":         5, // 4.3 GiB and three images, 407 MB
	"kargo":           3, // 2.5 GiB and a 357 MB image
	"metrics-server":  2, // 1.6 GiB and an 82 MB image
}

// Build is one image build a plan needs.
type Build struct {
	What   string // "argocd v3.5.1 (source tree)", "node image v1.33.13"
	Recipe string // images.NodeRecipe, "argocd", "argocd-tree", a component's
	// Disk is what it takes on disk, in GiB (coldDisk).
	Disk float64
	Cost time.Duration
	// Measured: Cost is this machine's last build of it (the ledger), not
	// the figure of coldcost.yaml, which Source then names, scaled by Speed.
	Measured bool
	Source   string
	Speed    *Speed // nil: not scaled (measured here, or the docs' figures)
	Present  bool   // built and in Docker: costs nothing
}

// Forecast is what a run will run and cost, known before its first build:
// the cells, the SKIPPED ones and why, the clusters and installs, the builds
// still needed with their cold cost, and a warm and a cold estimate.
type Forecast struct {
	Mode     images.Mode
	Parallel int
	Estimate schedule.Estimate
	Cells    []matrix.Cell // every planned cell; Skipped says which will not run
	Skipped  map[string]string
	Builds   []Build
	// Why says how Parallel was chosen, when it was (PARALLEL=auto).
	Why string
}

// Warm is the wall time with every build done.
func (f Forecast) Warm() time.Duration { return f.Estimate.Wall(f.Parallel) }

// Cold is Warm plus the builds still needed: the node images and the
// prebuild side by side (a run prebuilds its ArgoCD releases and its
// components' images, one after the other, beside the node image:
// Runner.Prebuild). On a new machine (run 20261127-123742) the node image
// took 13m35s beside ArgoCD v2.14.11's 10m00s and v3.5.1's 8m47s, and the
// run 33m52s in all, where adding every build up had estimated 1h05m.
func (f Forecast) Cold() time.Duration {
	var node, prebuild time.Duration
	for _, b := range f.Builds {
		switch {
		case b.Present:
		case b.Recipe == images.NodeRecipe:
			node += b.Cost
		default:
			prebuild += b.Cost
		}
	}
	return f.Warm() + max(node, prebuild)
}

// Disk is what the builds still needed take on disk, in GiB.
func (f Forecast) Disk() float64 {
	var gib float64
	for _, b := range f.Builds {
		if !b.Present {
			gib += b.Disk
		}
	}
	return gib
}

// FitsDisk refuses a run whose builds still needed do not fit in free
// bytes (Docker's data root, where the images go; Go's caches are usually
// beside it) with the DiskMin a run needs besides, in one line naming the
// fixes, before anything is built: a run that fills the disk half-way
// ends its cells ERROR after minutes of building.
func (f Forecast) FitsDisk(free uint64, where string) error {
	need := f.Disk() + float64(host.DiskMin)/(1<<30)
	if f.Disk() == 0 || float64(free)/(1<<30) >= need {
		return nil
	}
	return fmt.Errorf("the builds still needed take about %.0f GiB and a run %.0f GiB more, but %.1f GiB is free on %s: free space (docker system prune, go clean -cache, make cluster-delete), or run fewer builds (TIER=quick, fewer ARGOCD= or KUBERNETES= versions)",
		f.Disk(), float64(host.DiskMin)/(1<<30), float64(free)/(1<<30), where)
}

// Limit is the time limit a run of this forecast gets when the user sets
// none: three times its cold estimate, and the margin to stop, report and
// clean up; never under 30 minutes. A limit stops a run that hangs, not one
// on a slower machine than the one the figures were measured on: the main
// job on a new machine of 2026-11-29 took its builds 2.3 to 2.6 times as
// long as 2026-11-27's (run 20261129-005928), and "half again" stopped it
// at 56 minutes with three cells waiting on ArgoCD v3.6.1's build.
func (f Forecast) Limit() time.Duration {
	return max(30*time.Minute, (f.Cold()*3 + 10*time.Minute).Round(time.Minute))
}

// NewForecast prices cells (Validate's) as they will run in mode on n
// clusters: the skip rule the run applies, the measured cell times (costs),
// and the builds the machine still lacks.
func NewForecast(ctx context.Context, cat *catalog.Catalog, cells []matrix.Cell, mode images.Mode, n, repeat int, costs *schedule.Costs, repo string) Forecast {
	f := Forecast{Mode: mode, Cells: cells, Skipped: map[string]string{}}
	skip := func(c matrix.Cell) string { return skipped(cat, c, mode) }
	for _, c := range cells {
		if why := skip(c); why != "" {
			f.Skipped[c.Report().ID()] = why
		}
	}
	f.Estimate = schedule.EstimateOf(cells, repeat, costs, skip)
	if mode == images.Offline {
		f.Builds = builds(ctx, cat, cells, skip, repo, true)
	}
	return f.On(n)
}

// On is the forecast on n clusters at once (no more than cells): the
// cells, skips and builds do not depend on it, only the wall time.
func (f Forecast) On(n int) Forecast {
	f.Parallel = max(1, min(n, len(f.Cells)))
	return f
}

// Skipped says why a cell will not run in mode (a tier's release without
// its sources, a scenario that cannot run offline, a Kubernetes older than
// its component version's minimum), "" when it will.
func Skipped(cat *catalog.Catalog, c matrix.Cell, mode images.Mode) string {
	return skipped(cat, c, mode)
}

// ColdBuilds are the offline builds cells need on a new machine (nothing
// built, nothing measured), with coldcost.yaml's figures, each on the same
// machine (DocsMachine; a figure measured on another is scaled by the two
// machines' probes): what the docs quote.
func ColdBuilds(cat *catalog.Catalog, cells []matrix.Cell, repo string) []Build {
	return builds(context.Background(), cat, cells, func(c matrix.Cell) string { return skipped(cat, c, images.Offline) }, repo, false)
}

// builds are the offline builds the running cells need: a node image per
// Kubernetes version, the images of each ArgoCD release (upgrade targets
// too) and of each component version with a recipe under images/.
func builds(ctx context.Context, cat *catalog.Catalog, cells []matrix.Cell, skip func(matrix.Cell) string, repo string, here bool) []Build {
	cache, _ := CacheDir()
	if !here { // a new machine: no ledger, no Docker asked
		cache = filepath.Join(os.DevNull, "none")
	}
	var out []Build
	seen := map[string]bool{}
	var probed Speed
	add := func(recipe, version, what string, present func() (images.Built, bool)) {
		if seen[recipe+"@"+version] {
			return
		}
		seen[recipe+"@"+version] = true
		entry, ok := present()
		cold := coldCost[recipe]
		b := Build{What: what, Recipe: recipe, Cost: cold.Cost(), Source: cold.Source(), Disk: coldDisk[recipe], Present: ok}
		switch {
		case entry.Seconds > 0:
			b.Cost, b.Measured, b.Source = time.Duration(entry.Seconds)*time.Second, true, "measured here"
		case here && !ok: // a figure from another machine, for a build this one still needs
			speed := speedFor(&probed, cold.Machine)
			b.Speed, b.Cost = &speed, speed.Scale(b.Cost)
			b.Source += fmt.Sprintf("; x%.1f here", speed.Factor)
		case !here && cold.Machine != DocsMachine(): // the docs quote every figure on one machine
			docs := against(coldMachines[DocsMachine()].ProbeTime(), coldMachines[cold.Machine])
			b.Cost = docs.Scale(b.Cost)
			b.Source += fmt.Sprintf("; x%.2f on %s's machine", docs.Factor, DocsMachine())
		}
		out = append(out, b)
	}
	ledger := func(recipe, version string) func() (images.Built, bool) {
		return func() (images.Built, bool) { return images.Present(ctx, cache, recipe, version) }
	}
	for _, c := range cells {
		if skip(c) != "" {
			continue
		}
		k := c.Kubernetes
		add(images.NodeRecipe, k.Version, "node image "+k.Version, func() (images.Built, bool) {
			entry, _ := images.LedgerEntry(cache, images.NodeRecipe, k.Version)
			return entry, here && images.NodeImagePresent(ctx, repo, cat, k)
		})
		for _, rel := range append([]catalog.Release{c.ArgoCD}, c.Upgrades...) {
			recipe, what := "argocd", "argocd "+rel.String()
			if rel.FromSources() {
				recipe, what = "argocd-tree", what+" (from its source tree)"
			}
			add(recipe, rel.String(), what, ledger("argocd", rel.String())) // one recipe, one ledger entry, either source
		}
		for _, cb := range componentBuilds(cat, repo, c) {
			add(cb.Recipe, cb.Version, cb.Recipe+" "+cb.Version, ledger(cb.Recipe, cb.Version))
		}
	}
	return out
}

// componentBuilds are the builds of a cell's images: its component's
// (componentBuild), then those its scenario names besides
// (matrix.Scenario.Builds: make upgrade-check's metrics-server).
func componentBuilds(cat *catalog.Catalog, repo string, c matrix.Cell) []lifecycle.ComponentBuild {
	var out []lifecycle.ComponentBuild
	if cb, ok := componentBuild(cat, repo, c); ok {
		out = append(out, cb)
	}
	for _, b := range c.Scenario.Builds {
		component, version, _ := strings.Cut(b, "@")
		recipe := recipeOf(repo, component)
		if recipe == "" || version == "" {
			continue
		}
		out = append(out, lifecycle.ComponentBuild{Component: component, Recipe: recipe, Version: version})
	}
	return out
}

// componentBuild is the build of a cell's component images, if it has one:
// its catalog name, recipe and version. The forecast and the prebuild
// (Runner.Prebuild) both ask it, so that the plan prices what the run does.
func componentBuild(cat *catalog.Catalog, repo string, c matrix.Cell) (lifecycle.ComponentBuild, bool) {
	if c.Scenario.UserChart { // a user's chart names no recipe: what it runs is in the scenario's Builds
		return lifecycle.ComponentBuild{}, false
	}
	recipe := recipeOf(repo, c.Scenario.Component)
	if recipe == "" || c.ComponentVersion == "" {
		return lifecycle.ComponentBuild{}, false
	}
	return lifecycle.ComponentBuild{Component: c.Scenario.Component, Recipe: recipe, Version: c.ComponentVersion}, true
}

// recipeOf is the image recipe (images/<name>/build.sh) of a component: its
// name, or its family's (knative-serving: knative); "" when it has none
// (kube-ovn installs CRDs only).
func recipeOf(repo, component string) string {
	family, _, _ := strings.Cut(component, "-")
	for _, name := range []string{component, family} {
		if name == "argocd" {
			continue
		}
		if _, err := os.Stat(filepath.Join(repo, "images", name, "build.sh")); err == nil {
			return name
		}
	}
	return ""
}

// String renders the forecast as every run prints it before its first
// build.
func (f Forecast) String() string {
	var b strings.Builder
	e := f.Estimate
	fmt.Fprintf(&b, "plan: %d cell(s) x %d run(s) on %d cluster(s) at once (%s mode); %d SKIPPED\n", e.Cells, e.Repeat, f.Parallel, f.Mode, e.Skipped)
	var reasons []string
	skippedFor := map[string][]string{}
	for _, c := range f.Cells {
		id := c.Report().ID()
		if why, ok := f.Skipped[id]; ok {
			if _, seen := skippedFor[why]; !seen {
				reasons = append(reasons, why)
			}
			skippedFor[why] = append(skippedFor[why], id)
			continue
		}
		fmt.Fprintf(&b, "  run     %s\n", id)
	}
	for _, why := range reasons {
		fmt.Fprintf(&b, "  SKIPPED %s\n          why: %s\n", strings.Join(skippedFor[why], "\n          "), why)
	}
	if e.Cells == 0 {
		b.WriteString("  nothing to run: no cluster is made\n")
		return b.String()
	}
	if f.Why != "" {
		fmt.Fprintf(&b, "  clusters at once: %s\n", f.Why)
	}
	fmt.Fprintf(&b, "  clusters: %d Kubernetes version(s), each a cluster; %d ArgoCD install(s) (a release on a cluster, upgrade targets too)\n", e.Clusters, e.Installs)
	var need []string
	var built int
	var speed *Speed
	for _, bd := range f.Builds {
		if bd.Present {
			built++
			continue
		}
		need = append(need, fmt.Sprintf("%s ~%s (%s)", bd.What, bd.Cost.Round(time.Minute), bd.Source))
		if bd.Speed != nil && speed == nil {
			speed = bd.Speed
		}
	}
	switch {
	case f.Mode != images.Offline:
		b.WriteString("  builds: none (online: the upstream images are pulled)\n")
	case len(need) == 0:
		fmt.Fprintf(&b, "  builds: none needed (%d cached)\n", built)
	default:
		fmt.Fprintf(&b, "  builds still needed (%d cached): %s\n", built, strings.Join(need, "; "))
		if speed != nil {
			fmt.Fprintf(&b, "  this machine: figures measured elsewhere scaled by the CPU probe, %s\n", speed)
		}
		b.WriteString("  builds beside the node image (the prebuild): every ArgoCD release and component image above, in the plan's order\n")
		fmt.Fprintf(&b, "  disk: the builds still needed take about %.0f GiB (images, Go's module and build caches, as on a new machine), besides the %d GiB a run needs\n", f.Disk(), host.DiskMin>>30)
	}
	fmt.Fprintf(&b, "  estimate: warm %s, cold %s (%d of %d cell(s) priced from their measured runs in reports/, the others from their scenario's `seconds:` in suites/matrix.yaml)\n",
		f.Warm().Round(time.Minute), f.Cold().Round(time.Minute), e.Measured, e.Cells)
	return b.String()
}

// Report is the forecast as the run's report keeps it (make plan sets it
// against what the run took).
func (f Forecast) Report() *report.Estimate {
	e := &report.Estimate{WarmSeconds: f.Warm().Seconds(), ColdSeconds: f.Cold().Seconds(), Parallel: f.Parallel, Scenarios: map[string]float64{}}
	for _, b := range f.Builds {
		if !b.Present {
			e.Builds = append(e.Builds, b.What)
		}
	}
	for s, d := range f.Estimate.ByScenario {
		e.Scenarios[s] = d.Seconds()
	}
	return e
}

// Fits refuses a run whose cold estimate exceeds limit, in one line naming
// the fixes.
func (f Forecast) Fits(limit time.Duration) error {
	if limit <= 0 || f.Cold() <= limit {
		return nil
	}
	fixes := []string{"E2E_TIMEOUT=auto (a limit from the estimate)"}
	if f.Parallel < MaxClusters && f.Estimate.Cells > f.Parallel {
		fixes = append(fixes, fmt.Sprintf("PARALLEL=%d", min(f.Parallel+1, MaxClusters)))
	}
	fixes = append(fixes, "TIER=quick", "KUBERNETES=<one version>", "fewer ARGOCD=/VARIANT=")
	return fmt.Errorf("the plan's estimate (cold %s, warm %s) exceeds the time limit %s: narrow it with %s",
		f.Cold().Round(time.Minute), f.Warm().Round(time.Minute), limit, strings.Join(fixes, ", "))
}

// ComponentBuildOf is the build of a component's release named as
// component@version (kargo@v1.11.2): its catalog name, recipe and version,
// or why it is none (a component not in the catalog, a version it does not
// pin, a component with no image recipe).
func ComponentBuildOf(cat *catalog.Catalog, repo, spec string) (lifecycle.ComponentBuild, error) {
	component, version, ok := strings.Cut(spec, "@")
	if !ok || component == "" || version == "" {
		return lifecycle.ComponentBuild{}, fmt.Errorf("%q: want component@version (kargo@v1.11.2)", spec)
	}
	comp, err := cat.Component(component)
	if err != nil {
		return lifecycle.ComponentBuild{}, err
	}
	if !slices.Contains(comp.Versions, version) {
		return lifecycle.ComponentBuild{}, fmt.Errorf("%s version %q: the catalog pins %s", component, version, strings.Join(comp.Versions, ", "))
	}
	recipe := recipeOf(repo, component)
	if recipe == "" {
		return lifecycle.ComponentBuild{}, fmt.Errorf("%s: no image recipe (images/<name>/build.sh): nothing to build", component)
	}
	return lifecycle.ComponentBuild{Component: component, Recipe: recipe, Version: version}, nil
}
