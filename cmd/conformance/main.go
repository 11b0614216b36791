package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/host"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/releases"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/schedule"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/suites"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, commandListing(commands()))
		os.Exit(2)
	}
	cat, err := catalog.Load()
	if err == nil {
		var data *matrix.Data
		if data, err = suites.Matrix(); err == nil {
			err = execute(context.Background(), cli{cat: cat, data: data, stdout: os.Stdout}, os.Args[1:])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if status := (*exitStatus)(nil); errors.As(err, &status) {
			os.Exit(status.code)
		}
		if runner.IsBadInput(err) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// run runs the command cmd with args, its output on stdout.
func run(ctx context.Context, cat *catalog.Catalog, data *matrix.Data, cmd string, args []string) error {
	return execute(ctx, cli{cat: cat, data: data, stdout: os.Stdout}, append([]string{cmd}, args...))
}

// selectionCommand is list, check or plan: a selection of cells, as make
// e2e names it.
func selectionCommand(cmd string) func(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	return func(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
		var o runner.Options
		o.Register(fs)
		limit := fs.String("limit", "", "check: the run's time limit (a duration, or auto: one derived from the estimate); a run whose cold estimate exceeds a set limit is refused")
		parallel := fs.String("parallel", "", "check, plan: clusters at once (N, or auto: as many as the machine runs side by side where that shortens the run)")
		wide := fs.Bool("wide", false, "list: every axis, offline and online, with ArgoCD's support and what cannot be had here, as wide as it is (default: the quick tier's cell IDs, within 120 columns)")
		runFile := fs.String("run-file", "", "check: write the run's settings (E2E_LIMIT=, E2E_CLUSTERS=) into this file, for make")
		if err := parse(fs, args); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return &runner.BadInput{Err: fmt.Errorf("%s: unexpected argument %q", cmd, fs.Arg(0))}
		}
		cat, data := c.cat, c.data
		o.Repo, _ = os.Getwd() // make runs it from the checkout
		switch cmd {
		case "list":
			if !*wide {
				out, err := ListCells(cat, data)
				fmt.Fprint(c.stdout, out)
				return err
			}
			out, err := List(cat, data, cat.Support(ctx, sources.ProxyLister{}), o.Repo)
			fmt.Fprint(c.stdout, out)
			return err
		case "check":
			cells, err := runner.Validate(ctx, cat, data, o)
			if err != nil || *limit == "" {
				return err
			}
			f, err := forecast(ctx, cat, cells, o, *parallel)
			if err != nil {
				return err
			}
			fmt.Fprint(c.stdout, f)
			if err := checkDisk(ctx, f); err != nil {
				return &runner.BadInput{Err: err}
			}
			return checkLimit(f, *limit, *runFile)
		}
		cells, err := runner.Validate(ctx, cat, data, o)
		if err != nil {
			return err
		}
		f, err := forecast(ctx, cat, cells, o, *parallel)
		if err != nil {
			return err
		}
		fmt.Fprint(c.stdout, f)
		fmt.Fprint(c.stdout, Plan(f.Estimate, reportsDir(o)))
		fmt.Fprint(c.stdout, History(reportsDir(o), 10))
		return nil
	}
}

func reportsDir(o runner.Options) string {
	if o.Costs != "" {
		return o.Costs
	}
	if o.Reports != "" {
		return o.Reports
	}
	return "reports"
}

// forecast prices the cells as the run will: the mode it will detect, the
// clusters it runs on (parallel: N, or auto: up to what the machine runs side
// by side, the fewest that come within 5% of the shortest warm estimate; ""
// the options'), the cell times measured under reports/.
func forecast(ctx context.Context, cat *catalog.Catalog, cells []matrix.Cell, o runner.Options, parallel string) (runner.Forecast, error) {
	mode, _ := images.ParseMode(o.Mode)
	if o.RegistryMirror != "" {
		mode = images.Online
	}
	mode, _ = images.Detect(ctx, mode, images.HTTPProbe)
	costs := schedule.ReadCosts(reportsDir(o))
	at := func(n int) runner.Forecast {
		return runner.NewForecast(ctx, cat, cells, mode, n, o.Repeat, costs, o.Repo)
	}
	switch parallel {
	case "":
		return at(o.Clusters), nil
	case "auto":
		machine, base := host.ThisMachine(), at(1) // priced once: only the wall time depends on the clusters
		best := base
		for n := 2; n <= min(machine.Clusters(), runner.MaxClusters); n++ {
			if f := base.On(n); f.Warm() < best.Warm()*95/100 {
				best = f
			}
		}
		best.Why = fmt.Sprintf("PARALLEL=auto: %d of the %d cluster(s) this machine runs side by side (%s)", best.Parallel, machine.Clusters(), machine)
		return best, nil
	}
	n, err := strconv.Atoi(parallel)
	if err != nil || n < 1 || n > runner.MaxClusters {
		return runner.Forecast{}, &runner.BadInput{Err: fmt.Errorf("parallel %q: a number of clusters, 1 to %d, or auto", parallel, runner.MaxClusters)}
	}
	return at(n), nil
}

// checkDisk refuses a run whose builds still needed would fill the disk
// Docker keeps its images on (read where the engine says, else at its
// default data root: a new machine, before the suite starts one).
func checkDisk(ctx context.Context, f runner.Forecast) error {
	if f.Disk() == 0 {
		return nil
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return nil
	}
	disks := host.Gather(ctx, cache).Disks
	if len(disks) == 0 {
		return nil // could not tell: the run's own preflight and each build ask again
	}
	return f.FitsDisk(disks[0].Free, disks[0].Path)
}

// checkLimit gives the run its time limit: with "auto", one derived from
// the forecast; with a duration, the forecast must fit in it (else bad
// input naming the fixes). The limit and the clusters go to file for make.
func checkLimit(f runner.Forecast, limit, file string) error {
	d := f.Limit()
	if limit != "auto" {
		var err error
		if d, err = time.ParseDuration(limit); err != nil {
			return &runner.BadInput{Err: fmt.Errorf("time limit %q: a duration (170m) or auto", limit)}
		}
		if err := f.Fits(d); err != nil {
			return &runner.BadInput{Err: err}
		}
	} else {
		fmt.Printf("  time limit: %s (E2E_TIMEOUT=auto: three times the cold estimate, for a slower machine, and 10 minutes to stop, report and clean up)\n", d)
	}
	if file == "" {
		return nil
	}
	return os.WriteFile(file, fmt.Appendf(nil, "E2E_LIMIT=%s\nE2E_CLUSTERS=%d\n", d, f.Parallel), 0o644)
}

// Plan renders an estimate: cluster time per scenario and the wall time on
// 1..MaxClusters clusters.
func Plan(e schedule.Estimate, reports string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d cell(s) x %d run(s) on %d ArgoCD release(s) and %d Kubernetes version(s), %d install(s): about %s of cell time\n",
		e.Cells, e.Repeat, e.Releases, e.Clusters, e.Installs, e.Total.Round(time.Minute))
	fmt.Fprintf(&b, "(%d cell(s) from the median of their runs in %s/, the others from their scenario's `seconds:` in suites/matrix.yaml; SKIPPED cells cost nothing)\n\n", e.Measured, reports)
	for _, s := range e.Scenarios {
		fmt.Fprintf(&b, "  %-22s %8s\n", s, e.ByScenario[s].Round(time.Minute))
	}
	b.WriteString("\nclusters  wall, warm (the cell time, one cluster per Kubernetes version and one install per release on it, shared out;\n          never under the largest cell; clusters on one machine slow each other down, so more is not always faster)\n")
	for n := 1; n <= runner.MaxClusters; n++ {
		fmt.Fprintf(&b, "  %d       %8s\n", n, e.Wall(n).Round(time.Minute))
	}
	return b.String()
}

// expected is a cell's measured expectation in a mode, or that there is none.
func expected(data *matrix.Data, c matrix.Cell, offline bool) string {
	if o, _ := data.Expected(c, offline); o != "" {
		return string(o)
	}
	return "unmeasured"
}

var modeName = map[bool]string{true: "offline", false: "online"}

// supportText says which minor lines upstream supports, how each release of
// the default axis stands, and, for a supported line the axis lacks or runs
// behind its newest patch, whether that patch can be had here.
func supportText(cat *catalog.Catalog, axis []catalog.Release, lines int, support catalog.Support, repo string) string {
	var b strings.Builder
	if len(support.Lines) == 0 {
		fmt.Fprintf(&b, "ArgoCD releases upstream supports: %s\n", support)
		return b.String()
	}
	fmt.Fprintf(&b, "ArgoCD releases upstream supports (the %d newest minor lines the module proxy lists, read now): %s; older lines are end-of-life\n",
		lines, support)
	var marks []string
	for _, rel := range axis {
		marks = append(marks, rel.String()+" "+support.Of(rel))
	}
	fmt.Fprintf(&b, "  default axis: %s\n", strings.Join(marks, ", "))
	for _, line := range support.Lines {
		newest := catalog.MustRelease(line.Newest)
		have := ""
		for _, rel := range axis {
			if l, ok := support.Line(rel); ok && l == line {
				have = rel.String()
			}
		}
		if have == line.Newest {
			continue
		}
		what := fmt.Sprintf("  %s: newest %s", line, line.Newest)
		if have != "" {
			what += ", the axis has " + have
		} else {
			what += ", not on the axis"
		}
		if src := cat.ArgoCD.Sources; !newest.FromSources() && src != nil && src.Until != "" && catalog.CompareTags(line.Newest, src.Until) >= 0 {
			fmt.Fprintf(&b, "%s; ARGOCD=%s runs it (offline from its module zips: its go.mod requires the nested gitops-engine at its own tag, from %s on)\n", what, line.Newest, src.Until)
		} else if !newest.FromSources() {
			fmt.Fprintf(&b, "%s; ARGOCD=%s runs it (its module zip builds offline)\n", what, line.Newest)
		} else if _, err := releases.Obtainable(cat, newest, images.Offline, repo); err == nil {
			fmt.Fprintf(&b, "%s; ARGOCD=%s runs it (its source tree is in %s)\n", what, line.Newest, argocd.SourcesEnv)
		} else {
			fmt.Fprintf(&b, "%s; ARGOCD=%s: %s\n", what, line.Newest, err)
		}
	}
	return b.String()
}

// KubeAxis lists the catalog's Kubernetes versions, the default marked.
func KubeAxis(cat *catalog.Catalog) string {
	var vs []string
	for _, v := range cat.Kubernetes.Versions {
		if v.Version == cat.Kubernetes.Default {
			vs = append(vs, v.Version+" (default)")
			continue
		}
		vs = append(vs, v.Version)
	}
	return strings.Join(vs, ", ")
}

// List renders the matrix for `make list`: which ArgoCD releases upstream
// supports (support, read from the module proxy's listing), then each
// variant's cells on the scenario's default axis with their measured
// expectation, "unmeasured" where no run on a cluster recorded one. repo is
// the checkout a relative ARGOCD_SOURCES is taken from.
// listWidth bounds make list's lines (make list WIDE=1 has no bound).
const listWidth = 120

// ListCells is make list: per scenario its summary and its quick tier's
// cells (what make e2e SCENARIO=name runs), each by its ID (what CELLS=
// takes) with the outcome measured offline, every line within listWidth.
func ListCells(cat *catalog.Catalog, data *matrix.Data) (string, error) {
	var b strings.Builder
	line := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		if len(s) > listWidth {
			s = s[:listWidth-3] + "..."
		}
		b.WriteString(s + "\n")
	}
	line("Each scenario's quick tier (make e2e SCENARIO=name runs it; CELLS=id,id runs some), the outcome measured offline.")
	line("make list WIDE=1: every axis, offline and online, ArgoCD's support, what cannot be had here.")
	line("Kubernetes axis %s", KubeAxis(cat))
	line("ArgoCD axis %s (ARGOCD= takes any release tag)", strings.Join(cat.ArgoCD.Default, ", "))
	for _, s := range data.Scenarios {
		cells, err := data.Plan(cat, matrix.Selection{Scenarios: []string{s.Name}, Tier: matrix.TierQuick})
		if err != nil {
			return b.String(), fmt.Errorf("suites/matrix.yaml: scenario %q: %w", s.Name, err)
		}
		b.WriteString("\n")
		line("%s (%s): %s", s.Name, s.Component, s.Summary)
		width := 0
		for _, c := range cells {
			width = max(width, len(c.Report().ID()))
		}
		for _, c := range cells {
			line("  %-*s  %s", width, c.Report().ID(), expected(data, c, true))
		}
	}
	return b.String(), nil
}

// List is make list WIDE=1: the axes, ArgoCD's support, and each variant's
// expectations on every axis, offline and online.
func List(cat *catalog.Catalog, data *matrix.Data, support catalog.Support, repo string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Kubernetes axis: %s (kind %s; KUBERNETES=v1.35 or v1.35.4); ArgoCD default axis: %s (any release tag works: ARGOCD=v2.14.5)\n",
		KubeAxis(cat), cat.Kind, strings.Join(cat.ArgoCD.Default, ", "))
	axis, err := cat.Releases(cat.ArgoCD.Default)
	if err != nil {
		return b.String(), err
	}
	b.WriteString(supportText(cat, axis, cat.SupportedLineCount(), support, repo))
	b.WriteString("\n")
	for _, s := range data.Scenarios {
		axis := s.ArgoCDTags(cat.ArgoCD.Default)
		slices.SortFunc(axis, catalog.CompareTags)
		rels, err := cat.Releases(axis)
		if err != nil {
			return b.String(), fmt.Errorf("suites/matrix.yaml: scenario %q: %w", s.Name, err)
		}
		var supported []string
		for _, rel := range rels {
			if support.Of(rel) == catalog.Supported {
				supported = append(supported, rel.String())
			}
		}
		marks := "supported: none, every release end-of-life"
		switch {
		case len(support.Lines) == 0:
			marks = "supported: " + catalog.CouldNotTell
		case len(supported) > 0:
			marks = "supported: " + strings.Join(supported, ", ")
		}
		kubeNames := s.Kubernetes
		if len(kubeNames) == 0 {
			kubeNames = []string{cat.Kubernetes.Default}
		}
		fmt.Fprintf(&b, "%s (%s; ArgoCD %s; %s; Kubernetes %s)\n  %s\n", s.Name, s.Component, strings.Join(axis, ", "), marks, strings.Join(kubeNames, ", "), s.Summary)
		if s.KubernetesWhy != "" {
			fmt.Fprintf(&b, "  Kubernetes: %s\n", s.KubernetesWhy)
		}
		if s.OfflineSkip != "" {
			fmt.Fprintf(&b, "  offline: SKIPPED: %s\n", s.OfflineSkip)
		}
		// a scenario whose component is not in the catalog lists no releases against it
		comp, compErr := cat.Component(s.Component)
		if compErr == nil {
			for _, v := range slices.SortedFunc(maps.Keys(comp.Unobtainable), catalog.CompareTags) {
				fmt.Fprintf(&b, "  not obtainable: %s %s: %s\n", s.Component, v, comp.UnobtainableWhy(v, true))
			}
			for _, r := range comp.UnobtainableFrom {
				fmt.Fprintf(&b, "  not obtainable: %s %s and later: %s\n", s.Component, r.From, comp.UnobtainableWhy(r.From, true))
			}
		}
		for _, v := range s.Variants {
			fmt.Fprintf(&b, "  - %-20s %s %-9s %s\n", v.Name, s.Component, strings.Join(v.Versions(), ","), v.Summary)
			kubes, err := s.KubeAxis(cat, v, nil)
			if err != nil {
				return b.String(), fmt.Errorf("suites/matrix.yaml: %w", err)
			}
			if len(v.Kubernetes) > 0 {
				fmt.Fprintf(&b, "      Kubernetes %s: %s\n", strings.Join(v.Kubernetes, ", "), v.KubernetesWhy)
			}
			rels, err := cat.Releases(s.ArgoCDAxis(v, cat.ArgoCD.Default))
			if err != nil {
				return b.String(), fmt.Errorf("suites/matrix.yaml: scenario %q, variant %q: %w", s.Name, v.Name, err)
			}
			if len(v.ArgoCD) > 0 {
				fmt.Fprintf(&b, "      ArgoCD %s: %s\n", strings.Join(v.ArgoCD, ", "), v.ArgoCDWhy)
			}
			for _, version := range v.Versions() {
				for _, k := range kubes {
					for _, offline := range []bool{true, false} {
						b.WriteString("      " + strings.TrimSpace(version+" "+modeName[offline]+" k8s "+k.Running(offline)+":"))
						if compErr == nil && version != "" && comp.Unsupported(version, k.Running(offline)) != "" {
							fmt.Fprintf(&b, " SKIPPED (%s needs Kubernetes %s or newer)\n", version, comp.MinKubernetes[version])
							continue
						}
						for _, rel := range rels {
							fmt.Fprintf(&b, " %s %s", rel, expected(data, matrix.Cell{Scenario: s, Variant: v, ArgoCD: rel, ComponentVersion: version, Kubernetes: k}, offline))
						}
						b.WriteString("\n")
					}
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
