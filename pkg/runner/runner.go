package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/report/render"
	"github.com/gitops-conformance/suite/pkg/schedule"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Scenario is one scenario's code: the function that builds its steps for a
// cell, and the variants that function handles.
type Scenario struct {
	Feature  func(matrix.Cell) step.Scenario
	Variants []string
	// Expand, when set, makes a cell that ran once several cells of the
	// report, from what it wrote into its evidence directory dir (a fleet
	// of Applications judged on one cluster), with notes for the report;
	// none keeps the cell as it is.
	Expand func(rc report.Cell, dir string) ([]report.Cell, []string)
}

// Scenarios maps a scenario name to its code.
type Scenarios map[string]Scenario

// Check refuses matrix data and code that disagree: a scenario of the data
// with no code or the other way round, or a variant the data declares and
// the scenario's code does not handle (it would reach no verdict), or one
// the code handles and the data does not declare.
func (s Scenarios) Check(d *matrix.Data) error {
	for _, sc := range d.Scenarios {
		code, ok := s[sc.Name]
		if !ok || code.Feature == nil {
			return fmt.Errorf("scenario %q: no code registered for it (suites.Scenarios)", sc.Name)
		}
		for _, v := range sc.VariantNames() {
			if !slices.Contains(code.Variants, v) {
				return fmt.Errorf("scenario %q: variant %q is in matrix.yaml but its code does not handle it (handles: %s)", sc.Name, v, strings.Join(code.Variants, ", "))
			}
		}
		for _, v := range code.Variants {
			if !slices.Contains(sc.VariantNames(), v) {
				return fmt.Errorf("scenario %q: its code handles variant %q, which matrix.yaml does not declare", sc.Name, v)
			}
		}
	}
	for name := range s {
		if _, err := d.Scenario(name); err != nil {
			return fmt.Errorf("scenario %q: code registered, not in matrix.yaml", name)
		}
	}
	return nil
}

// Exec runs one feature to its end (its teardowns included) and says
// whether it ran through, no step failed or skipped. The test binary runs it
// with e2e-framework on the current test.
type Exec func(ctx context.Context, f features.Feature) bool

// run runs a scenario's stages in order, each only when the one before it
// ran through and the cell neither failed nor was skipped.
func (e Exec) run(ctx context.Context, sc step.Scenario) {
	for _, f := range sc.Stages {
		if !e(ctx, f) || assert.RecordFrom(ctx).Stopped() {
			return
		}
	}
}

// Runner is one run of the matrix: the cells, their results and where they go.
type Runner struct {
	Run   *lifecycle.Run
	Data  *matrix.Data
	Cells []matrix.Cell
	// ArgoCD are the releases selected (-argocd), else the catalog's default
	// axis, in order: what make argocd-check installs.
	ArgoCD    []catalog.Release
	Repeat    int
	Dir       string // this run's report directory
	Scenarios Scenarios

	// queue, for a parallel run's cluster: where its cells come from, one
	// at a time; taken are those it took (Cells is the whole plan).
	queue   *schedule.Queue
	taken   []matrix.Cell
	last    *schedule.Unit
	handed  bool
	mu      sync.Mutex
	report  *report.Report
	waiting string // what the run is doing now, for a second Ctrl-C
	// testedRange is each ArgoCD release's tested Kubernetes range, read once
	// (or why it could not be).
	testedRange map[catalog.Release]testedAnswer
	ran         []string // the planned IDs of the cells run
	once        sync.Once
}

// SetWaiting records what the run is doing now.
func (r *Runner) SetWaiting(what string) {
	r.mu.Lock()
	r.waiting = what
	r.mu.Unlock()
}

// Waiting says what the run is doing now (a second interrupt prints it).
func (r *Runner) Waiting() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting == "" {
		return "setup (preflight, images, the cluster)"
	}
	return r.waiting
}

// New validates the options and reserves the run's report directory.
func New(ctx context.Context, o Options, cat *catalog.Catalog, data *matrix.Data, scenarios Scenarios, repo string) (*Runner, error) {
	o.Repo = repo
	cells, err := Validate(ctx, cat, data, o)
	if err != nil {
		return nil, err
	}
	axis := matrix.ParseList(o.ArgoCD)
	if len(axis) == 0 {
		axis = cat.ArgoCD.Default
	}
	releases, err := cat.Releases(axis) // Validate parsed them
	if err != nil {
		return nil, &BadInput{err}
	}
	slices.SortFunc(releases, catalog.Release.Compare)
	mode, _ := images.ParseMode(o.Mode)
	cache, err := CacheDir()
	if err != nil {
		return nil, err
	}
	reports := o.Reports
	if reports == "" {
		reports = filepath.Join(repo, "reports")
	}
	runID, err := reserveRunDir(reports, time.Now().UTC().Format("20060102-150405"))
	if err != nil {
		return nil, err
	}
	r := &Runner{
		Run: &lifecycle.Run{Repo: repo, CacheDir: cache, Catalog: cat, Mode: mode, Keep: o.Keep,
			Cluster: o.Cluster, Out: os.Stdout},
		Data: data, Cells: cells, ArgoCD: releases, Repeat: o.Repeat, Dir: filepath.Join(reports, runID), Scenarios: scenarios,
		report: &report.Report{RunID: runID, Started: time.Now().UTC(), Kubernetes: kubeVersions(cells), Command: o.Command,
			UnmeasuredFails: o.Unmeasured == "fail"},
	}
	r.report.ArgoCDSupport = SupportOf(cat.Support(ctx, sources.ProxyLister{}), cells)
	r.Run.NeedsCluster = r.needsCluster
	r.Run.Kubernetes = cells[0].Kubernetes
	if o.FirstKubernetes != "" {
		if r.Run.Kubernetes, err = cat.Kubernetes.Get(o.FirstKubernetes); err != nil {
			return nil, &BadInput{err}
		}
	}
	r.Run.NodeImageChoice = o.NodeImage
	r.Run.Deliver = o.Deliver
	r.Run.SharedRegistry = o.SharedRegistry
	if o.RegistryMirror != "" {
		m, err := registry.ParseMirror(o.RegistryMirror) // Validate checked it
		if err != nil {
			return nil, &BadInput{err}
		}
		r.Run.Mirror = &m
	}
	if o.Queue != "" {
		if r.queue, err = schedule.OpenQueue(o.Queue); err != nil {
			return nil, err
		}
		return r, nil
	}
	detected := mode
	if o.RegistryMirror != "" {
		detected = images.Online
	}
	detected, _ = images.Detect(ctx, detected, images.HTTPProbe)
	costs := o.Costs
	if costs == "" {
		costs = reports
	}
	f := NewForecast(ctx, cat, cells, detected, o.Clusters, o.Repeat, schedule.ReadCosts(costs), repo)
	r.report.Estimate = f.Report()
	r.Run.Logf("plan: %d cell(s) to run x %d, %d SKIPPED; estimate warm %s, cold %s (%d build(s) still needed)",
		f.Estimate.Cells, o.Repeat, f.Estimate.Skipped, f.Warm().Round(time.Minute), f.Cold().Round(time.Minute), len(r.report.Estimate.Builds))
	return r, nil
}

// kubeVersions are the Kubernetes versions of cells, oldest first, comma-separated:
// a report's run-level kubernetes (each cell names its own).
func kubeVersions(cells []matrix.Cell) string {
	var vs []string
	for _, c := range cells {
		if !slices.Contains(vs, c.Kubernetes.Version) {
			vs = append(vs, c.Kubernetes.Version)
		}
	}
	slices.SortFunc(vs, catalog.CompareTags)
	return strings.Join(vs, ", ")
}

// SupportOf is how each ArgoCD release of the cells (upgrade targets too)
// stands with upstream, as the report records it.
func SupportOf(s catalog.Support, cells []matrix.Cell) *report.Support {
	out := &report.Support{Releases: map[string]string{}, Why: s.Why}
	for _, l := range s.Lines {
		out.Lines = append(out.Lines, fmt.Sprintf("%s (newest %s)", l, l.Newest))
	}
	for _, c := range cells {
		for _, rel := range append([]catalog.Release{c.ArgoCD}, c.Upgrades...) {
			out.Releases[rel.String()] = s.Of(rel)
		}
	}
	return out
}

// CacheDir is where builds, binaries and images' work files are kept:
// $GITOPS_CONFORMANCE_CACHE, or gitops-conformance under the user's cache directory.
func CacheDir() (string, error) {
	if dir := os.Getenv("GITOPS_CONFORMANCE_CACHE"); dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "gitops-conformance"), nil
}

// reserveRunDir creates reports/<id>, or <id>-2, -3... when a run started in
// the same second (two clusters side by side) took it.
func reserveRunDir(reports, id string) (string, error) {
	if err := os.MkdirAll(reports, 0o755); err != nil {
		return "", err
	}
	for n := 1; ; n++ {
		try := id
		if n > 1 {
			try = fmt.Sprintf("%s-%d", id, n)
		}
		err := os.Mkdir(filepath.Join(reports, try), 0o755)
		if err == nil {
			return try, nil
		}
		if !os.IsExist(err) {
			return "", err
		}
	}
}

// Context is ctx carrying the run, as steps and env funcs expect it.
func (r *Runner) Context(ctx context.Context) context.Context { return lifecycle.WithRun(ctx, r.Run) }

// Plan logs the plan.
func (r *Runner) Plan() {
	if r.queue != nil {
		r.Run.Logf("plan: cells taken one at a time from %s, of %d cell(s) x %d run(s); report %s", r.queue.Dir, len(r.Cells), r.Repeat, r.Dir)
		return
	}
	r.Run.Logf("plan: %d cell(s) x %d run(s); report %s", len(r.Cells), r.Repeat, r.Dir)
}

// Next is the cells to run next, none when the run is done: the whole plan
// at once, or for a parallel run's cluster the next cell of the queue (none
// once ctx is cancelled: what is left stays queued and is reported not run).
func (r *Runner) Next(ctx context.Context) []matrix.Cell {
	if r.queue == nil {
		if r.handed {
			return nil
		}
		r.handed = true
		return r.Cells
	}
	if ctx.Err() != nil {
		return nil
	}
	last := r.last
	if last == nil { // the shard's cluster is of r.Run.Kubernetes: its cells first
		last = &schedule.Unit{Kubernetes: r.Run.Kubernetes.Version}
	}
	u, left, ok, err := r.queue.Take(r.Run.Cluster, last)
	if err != nil {
		r.Run.Logf("queue: %v; no further cell is taken", err)
		return nil
	}
	if !ok {
		return nil
	}
	for _, c := range r.Cells {
		if c.Report().ID() == u.ID {
			r.last = &u
			r.mu.Lock()
			r.taken = append(r.taken, c)
			r.mu.Unlock()
			r.Run.Logf("queue: took %s (%d left)", u.ID, left)
			return []matrix.Cell{c}
		}
	}
	r.Run.Logf("queue: cell %s is not in this run's plan; no further cell is taken", u.ID)
	return nil
}

// Cell runs one cell Repeat times and records it. It returns the report
// cell, or false when the run was interrupted before the cell started.
func (r *Runner) Cell(ctx context.Context, c matrix.Cell, exec Exec) (report.Cell, bool) {
	rc := c.Report()
	if ctx.Err() != nil {
		return rc, false
	}
	rc.Evidence = filepath.Join("cells", rc.ID())
	r.mu.Lock()
	if r.report.Phases == nil { // the first cell: what came before it is the run's setup
		build := r.Run.BuildTime()
		r.report.Phases = map[string]float64{"setup": time.Since(r.report.Started).Round(time.Second).Seconds() - build.Round(time.Second).Seconds(),
			"setup_build": build.Round(time.Second).Seconds()}
	}
	r.mu.Unlock()
	for i := range r.Repeat {
		if i > 0 && ctx.Err() != nil {
			break // the runs done so far stand; the report says the run was interrupted
		}
		evidence := rc.Evidence
		if r.Repeat > 1 {
			evidence = filepath.Join(evidence, fmt.Sprintf("run-%d", i+1))
		}
		dir := filepath.Join(r.Dir, evidence)
		r.Run.Logf("cell %s: start (run %d/%d)", rc.ID(), i+1, r.Repeat)
		r.SetWaiting("cell " + rc.ID())
		start := time.Now()
		clock := &phaseClock{run: r.Run, spent: map[string]time.Duration{}}
		outcome, reason, obs := r.prepare(ctx, c, clock)
		var explained assert.Explanation
		if outcome == "" {
			outcome, reason, obs, explained = r.execute(ctx, c, dir, exec, clock)
		}
		if r.Run.KubeServer != "" && r.Run.Kubernetes == c.Kubernetes {
			rc.Kubernetes = r.Run.KubeServer // what the cluster answered
		}
		if ctx.Err() != nil && outcome != report.Skipped {
			outcome, reason = report.Error, interrupted(ctx, reason)
		}
		d := time.Since(start).Seconds()
		r.Run.Logf("cell %s: %s in %.0fs: %s", rc.ID(), outcome, d, reason)
		rc.Runs = append(rc.Runs, report.Run{Outcome: outcome, Reason: reason, Duration: d, Evidence: evidence, Phases: clock.seconds()})
		rc.Observations = obs
		rc.Explained, rc.Unexplained = explained.IDs, explained.Unexplained
		if err := writeBundle(dir, filepath.Base(r.Dir), r.Run.NodeImage, rc.Kubernetes, r.Run.Catalog, r.Run.Mode, c, outcome, reason, obs); err != nil {
			// the verdict stands; the report says its bundle is incomplete
			r.Run.Logf("cell %s: reproduction bundle: %v", rc.ID(), err)
			r.mu.Lock()
			r.report.Notes = append(r.report.Notes, fmt.Sprintf("cell %s: reproduction bundle not written: %v", rc.ID(), err))
			r.mu.Unlock()
		}
	}
	rc.Expected, rc.ExpectedWhy = r.Data.ExpectedOn(c, r.Run.Mode == images.Offline, rc.Kubernetes)
	rc.ArgoCDTested, rc.Tested = r.tested(ctx, c.ArgoCD, rc.Kubernetes)
	if len(rc.Runs) == 1 {
		rc.Outcome, rc.Reason, rc.Duration, rc.Phases = rc.Runs[0].Outcome, rc.Runs[0].Reason, rc.Runs[0].Duration, rc.Runs[0].Phases
		rc.Runs = nil
	}
	settle(&rc, skipped(r.Run.Catalog, c, r.Run.Mode))
	cells, notes := []report.Cell{rc}, []string(nil)
	if expand := r.Scenarios[c.Scenario.Name].Expand; expand != nil && len(rc.Runs) == 0 {
		if more, n := expand(rc, filepath.Join(r.Dir, rc.Evidence)); len(more) > 0 {
			// the cell as its run's test sees it: unexpected where one of
			// its cells is
			rc.Expected, rc.Unexpected = rc.Outcome, false
			var look []string
			for i := range more {
				settle(&more[i], "")
				if more[i].NeedsLook() {
					look = append(look, fmt.Sprintf("%s %s (expected %s)", more[i].Variant, more[i].Outcome, more[i].Expected))
				}
			}
			if len(look) > 0 {
				rc.Unexpected, rc.Reason = true, fmt.Sprintf("%d of its %d cells: %s", len(look), len(more), strings.Join(look, "; "))
			}
			cells, notes = more, n
		} else {
			notes = n
		}
	}
	r.mu.Lock()
	r.report.Notes = append(r.report.Notes, notes...)
	r.report.Cells = append(r.report.Cells, cells...)
	r.ran = append(r.ran, c.Report().ID())
	r.mu.Unlock()
	return rc, true
}

type testedAnswer struct {
	tested argocd.Tested
	err    error
}

// tested says whether Kubernetes kube is in the range rel's own
// tested-kubernetes-versions.md lists, and that range: read from rel's
// module once a run; a read that failed is "could not tell", never outside.
func (r *Runner) tested(ctx context.Context, rel catalog.Release, kube string) (string, string) {
	r.mu.Lock()
	a, ok := r.testedRange[rel]
	r.mu.Unlock()
	if !ok {
		read, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute) // an interrupted run still says
		t, err := argocd.ReadTested(read, rel)
		cancel()
		a = testedAnswer{t, err}
		r.mu.Lock()
		if r.testedRange == nil {
			r.testedRange = map[catalog.Release]testedAnswer{}
		}
		r.testedRange[rel] = a
		r.mu.Unlock()
	}
	switch {
	case a.err != nil:
		return "", "could not tell: " + firstLine(a.err.Error())
	case kube == "":
		return a.tested.String(), "could not tell: the cell names no Kubernetes version"
	case a.tested.Has(kube):
		return a.tested.String(), report.TestedIn
	}
	return a.tested.String(), report.TestedOutside
}

// settle settles rc. A cell the plan skipped before it ran (skip says why:
// a component's minimum Kubernetes, a release whose sources are not
// provided) measured nothing, so whatever its expectation it is not
// unexpected: offline from a clone with nothing beside it the main job runs
// what it can and SKIPs the rest (run 20261127-131431 failed on those). A
// cell skipped while it ran (an input missing) still is.
func settle(rc *report.Cell, skip string) {
	rc.Settle()
	if rc.Outcome == report.Skipped && skip != "" {
		rc.Unexpected = false
	}
}

// interrupted is the reason of a cell the run's cancellation cut short.
func interrupted(ctx context.Context, during string) string {
	why := "interrupted"
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		why = cause.Error()
	}
	if during != "" {
		why += " (the step then: " + firstLine(during) + ")"
	}
	return why
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// skipped says why a cell cannot run in mode, or "": offline, a scenario
// that cannot; on any Kubernetes older than its component version's own
// minimum.
func skipped(cat *catalog.Catalog, c matrix.Cell, mode images.Mode) string {
	if c.Skip != "" {
		return c.Skip
	}
	if mode == images.Offline && c.Scenario.OfflineSkip != "" {
		return "offline: " + c.Scenario.OfflineSkip
	}
	if cat == nil {
		return ""
	}
	if comp, err := cat.Component(c.Scenario.Component); err == nil && c.ComponentVersion != "" {
		if why := comp.Unsupported(c.ComponentVersion, c.Kubernetes.Running(mode == images.Offline)); why != "" {
			return c.Scenario.Component + " " + why
		}
	}
	return ""
}

// Prebuild starts the offline builds the plan's running cells need, in the
// plan's order, beside the node image and the cluster
// (lifecycle.Run.Prebuild): each cell's ArgoCD release (upgrade targets
// too), then its component's images and those its scenario names besides
// (matrix.Scenario.Builds), from a source tree the user provides too
// (componentBuild, which the forecast prices the same way). A parallel run's
// clusters leave it to the run that started them.
func (r *Runner) Prebuild(ctx context.Context) {
	if r.queue != nil {
		return
	}
	r.Run.Prebuild(r.Context(ctx), prebuilds(r.Run.Catalog, r.Run.Repo, r.Cells, r.Run.Mode))
}

// prebuilds are what Prebuild builds for cells, in their order, each once.
func prebuilds(cat *catalog.Catalog, repo string, cells []matrix.Cell, mode images.Mode) []lifecycle.Prebuilt {
	var out []lifecycle.Prebuilt
	for _, c := range cells {
		if skipped(cat, c, mode) != "" {
			continue
		}
		for _, rel := range append([]catalog.Release{c.ArgoCD}, c.Upgrades...) {
			if p := (lifecycle.Prebuilt{ArgoCD: rel}); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
		for _, cb := range componentBuilds(cat, repo, c) {
			if p := (lifecycle.Prebuilt{Component: cb}); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// needsCluster is false when every cell of the plan is skipped in mode; the
// cluster made first is of the first cell that runs.
func (r *Runner) needsCluster(mode images.Mode) bool {
	for _, c := range r.Cells {
		if skipped(r.Run.Catalog, c, mode) == "" {
			if r.queue == nil {
				r.Run.Kubernetes = c.Kubernetes
			}
			return true
		}
	}
	return false
}

// prepare decides whether a cell can run and installs its ArgoCD release
// (shared by the cells of one release). A non-empty outcome ends the cell there.
func (r *Runner) prepare(ctx context.Context, c matrix.Cell, clock *phaseClock) (report.Outcome, string, []string) {
	if why := skipped(r.Run.Catalog, c, r.Run.Mode); why != "" {
		return report.Skipped, why, nil
	}
	if s, ok := r.Scenarios[c.Scenario.Name]; !ok || !slices.Contains(s.Variants, c.Variant.Name) {
		return report.Error, fmt.Sprintf("no scenario code registered for %s variant %q", c.Scenario.Name, c.Variant.Name), nil
	}
	if err := clock.time(PhaseCluster, func() error { return r.Run.UseKubernetes(r.Context(ctx), c.Kubernetes) }); err != nil {
		return report.Error, "the cluster of Kubernetes " + c.Kubernetes.Version + ": " + err.Error(), nil
	}
	if err := clock.time(PhaseInstall, func() error { return r.Run.InstallArgoCD(r.Context(ctx), c.ArgoCD) }); err != nil {
		return report.Error, err.Error(), nil
	}
	return "", "", nil
}

// execute runs a cell's feature once and returns its outcome.
func (r *Runner) execute(ctx context.Context, c matrix.Cell, dir string, exec Exec, clock *phaseClock) (report.Outcome, string, []string, assert.Explanation) {
	ctx = r.Context(ctx)
	ctx, rec := assert.WithRecord(ctx, c.Variant.Mitigation())
	ctx, cell := lifecycle.WithCell(ctx, dir)
	_ = clock.time(PhaseScenario, func() error { exec.run(ctx, r.Scenarios[c.Scenario.Name].Feature(c)); return nil })
	outcome, reason := rec.Outcome()
	r.SetWaiting("the evidence and cleanup of cell " + c.Report().ID())
	err := r.Run.End(ctx, cell)
	clock.spent[PhaseEvidence] += cell.Evidence
	clock.spent[PhaseTeardown] += cell.Teardown
	for phase, d := range rec.Spent() { // the feature's waits and holds, out of its own time
		clock.spent[phase] += d
		clock.spent[PhaseScenario] -= d
	}
	outcome, reason, observations := afterEnd(outcome, reason, rec.Observations, err)
	return outcome, reason, observations, rec.Explanation()
}

// afterEnd is a cell's outcome once its end (evidence, cleanups) returned
// err: a verdict reached stands when only a cleanup failed after it (a
// note; the cluster is made anew for the next cell: a blocked upgrade stays
// BROKEN); evidence not written, or a cleanup failing where the cell had no
// verdict, is an ERROR keeping the verdict it had in its reason.
func afterEnd(outcome report.Outcome, reason string, observations []string, err error) (report.Outcome, string, []string) {
	var cleanup *lifecycle.CleanupError
	var evidence *lifecycle.EvidenceError
	switch {
	case err == nil:
	case errors.As(err, &cleanup) && !errors.As(err, &evidence) && outcome != "" && outcome != report.Error:
		observations = append(slices.Clip(observations), fmt.Sprintf("after the verdict, %s (the cluster is not reused)", text.Clip(err.Error(), 300)))
	default:
		outcome, reason = report.Error, fmt.Sprintf("%s (verdict before cleanup: %s %s)", err, outcome, reason)
	}
	return outcome, reason, observations
}

// The phases a cell's time is split into (report.Run.Phases): building
// images (or waiting for another run's build), making its cluster,
// installing its ArgoCD release, its scenario's own steps (installs,
// actions, reads), its waits for a state and its holds of one, dumping its
// evidence, and its cleanups.
const (
	PhaseBuild    = "build"
	PhaseCluster  = "cluster"
	PhaseInstall  = "install"
	PhaseScenario = "steps"
	PhaseWaits    = assert.PhaseWaits
	PhaseHolds    = assert.PhaseHolds
	PhaseEvidence = "evidence"
	PhaseTeardown = "teardown"
)

// phaseClock splits a cell's time into phases, the builds within each
// apart.
type phaseClock struct {
	run   *lifecycle.Run
	spent map[string]time.Duration
}

func (p *phaseClock) time(phase string, fn func() error) error {
	b0, start := p.run.BuildTime(), time.Now()
	err := fn()
	build := p.run.BuildTime() - b0
	p.spent[PhaseBuild] += build
	p.spent[phase] += time.Since(start) - build
	return err
}

func (p *phaseClock) seconds() map[string]float64 {
	out := map[string]float64{}
	for k, d := range p.spent {
		if d > 0 {
			out[k] = d.Round(100 * time.Millisecond).Seconds()
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Check runs a feature that is not a matrix cell (no verdict, no report
// cell): exec fails the test, and it cleans up like a cell.
func (r *Runner) Check(ctx context.Context, name string, sc step.Scenario, exec Exec) error {
	ctx = r.Context(ctx)
	ctx, _ = assert.WithRecord(ctx, false)
	ctx, cell := lifecycle.WithCell(ctx, filepath.Join(r.Dir, "checks", name))
	start := time.Now()
	exec.run(ctx, sc)
	err := r.Run.End(ctx, cell)
	r.Run.Logf("check %s: done in %.0fs", name, time.Since(start).Seconds())
	return err
}

// Finish writes the report (once) and prints the summary. stopped, when not
// empty, says why the run ended early (an interrupt, a setup that failed);
// the cells it never started are then listed as not run.
func (r *Runner) Finish(stopped string) *report.Report {
	r.once.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		rep := r.report
		rep.Finished = time.Now().UTC()
		rep.Offline = r.Run.Mode == images.Offline
		if ran := report.KubeVersions(rep.Cells); ran != "" {
			rep.Kubernetes = ran // what the clusters answered
		}
		if r.Run.Mirror != nil && r.Run.Mode != images.Offline {
			rep.RegistryMirror = r.Run.Mirror.String()
		}
		rep.Notes = append(rep.Notes, r.Run.Notes...)
		if r.Run.ModeWhy != "" {
			rep.Notes = append(rep.Notes, fmt.Sprintf("mode %s: %s", r.Run.Mode, r.Run.ModeWhy))
		}
		if stopped != "" {
			rep.Stopped, rep.NotRun = stopped, r.notRun(rep.Cells)
		}
		_ = r.publish(rep, "") // a failure is logged; the exit status follows the cells
	})
	return r.report
}

// publish writes rep into the run's directory and prints its summary; what
// is added to the line that names the files.
func (r *Runner) publish(rep *report.Report, what string) error {
	if err := render.Write(rep, r.Dir); err != nil {
		r.Run.Logf("write report: %v", err)
		return err
	}
	r.Run.Logf("report: %s/report.{json,md,html} and junit.xml%s", r.Dir, what)
	fmt.Fprint(r.Run.Out, Summary(rep))
	return nil
}

// notRun are the planned cells the report holds no result of: for a
// parallel run's cluster, of those it took.
func (r *Runner) notRun(cells []report.Cell) []report.Cell {
	ran := map[string]bool{}
	for _, c := range cells {
		ran[c.ID()] = true
	}
	for _, id := range r.ran { // planned IDs: a cell's Kubernetes may be the cluster's other patch
		ran[id] = true
	}
	planned := r.Cells
	if r.queue != nil {
		planned = r.taken
	}
	var left []report.Cell
	for _, c := range planned {
		if rc := c.Report(); !ran[rc.ID()] {
			left = append(left, rc)
		}
	}
	return left
}

// Summary is the console table of a report.
func Summary(rep *report.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-22s %-28s %-9s %-10s %-16s %-16s %-16s %6s\n", "SCENARIO", "VARIANT", "ARGOCD", "KUBERNETES", "COMPONENT", "OUTCOME", "EXPECTED", "TIME")
	for _, c := range rep.Cells {
		mark, expected := "", string(c.Expected)
		switch {
		case c.Unexpected:
			mark = "  <- unexpected"
		case c.Unmeasured:
			expected = "unmeasured"
		}
		fmt.Fprintf(&b, "%-22s %-28s %-9s %-10s %-16s %-16s %-16s %5.0fs%s\n", c.Scenario, c.Variant, c.ArgoCD, c.Kubernetes, c.ComponentVersion, c.Outcome, expected, c.Duration, mark)
	}
	for _, c := range rep.NotRun {
		fmt.Fprintf(&b, "%-22s %-28s %-9s %-10s %-16s %-16s\n", c.Scenario, c.Variant, c.ArgoCD, c.Kubernetes, c.ComponentVersion, "not run")
	}
	for _, g := range rep.AcrossKubernetes() {
		fmt.Fprintf(&b, "\n%s %s, ArgoCD %s, %s, across Kubernetes versions:\n", g.Scenario, g.Variant, g.ArgoCD, strings.TrimSpace(g.Component))
		for _, c := range g.Cells {
			fmt.Fprintf(&b, "  %-10s %s\n", c.Kubernetes, c.Tally())
		}
	}
	if n := len(rep.Unmeasured()); n > 0 {
		policy := "listed, not a failure; UNMEASURED=fail makes them one"
		if rep.UnmeasuredFails {
			policy = "the run fails on them (UNMEASURED=fail)"
		}
		fmt.Fprintf(&b, "\n%d cell(s) with %s (%s): their outcome is new, not checked against anything\n", n, report.NoMeasurement, policy)
	}
	if rep.Stopped != "" {
		fmt.Fprintf(&b, "\nthe run stopped before its end: %s\n", rep.Stopped)
	}
	return b.String()
}
