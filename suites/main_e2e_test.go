//go:build e2e

package suites

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	e2eenv "sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"
	"sigs.k8s.io/e2e-framework/pkg/types"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/conform"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/route"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/schedule"
	"github.com/gitops-conformance/suite/pkg/upgrade"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
)

// Exit statuses of the test binary (`make e2e` runs it; make itself turns
// every failure into 2, so scripts that need these run bin/e2e.test).
const (
	exitFailed      = runner.ExitFailed
	exitBadInput    = runner.ExitBadInput
	exitInterrupted = runner.ExitInterrupted
)

// timeoutMargin is the time a run keeps, before go test's -timeout would
// kill it, to stop the current cell, write the report and delete the cluster.
const timeoutMargin = 3 * time.Minute

// The suite's state: e2e-framework's environment and the runner behind it.
var (
	testenv types.Environment
	run     *runner.Runner
	opts    runner.Options
	conf    conform.Options // make conform's: a chart to check instead of the matrix
	upg     spec.Options    // make upgrade-check's: Applications through an upgrade instead of the matrix
	shared  appcell.Shared  // the flags both take (-images, -image-recipes, -expect, -expect-why)
	runCtx  context.Context // cancelled by an interrupt
)

func init() {
	opts.Register(flag.CommandLine)
	shared.Register(flag.CommandLine)
	conf.Register(flag.CommandLine)
	upg.Register(flag.CommandLine)
}

func TestMain(m *testing.M) {
	flag.Parse()
	// make upgrade-check's settings from make's variables (spec.Settings)
	if err := spec.FromEnv(flag.CommandLine, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// one flag a make variable across commands: -from and -to are
	// bisect's and make upgrade-check's, the shared ones both runs'
	conf.Shared, upg.Shared = shared, shared
	upg.From, upg.To = opts.From, opts.To
	if opts.Clusters > 1 {
		os.Exit(parallel())
	}
	ctx := interruptible()
	runCtx = ctx
	r, err := newRunner(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if runner.IsBadInput(err) {
			os.Exit(exitBadInput)
		}
		os.Exit(exitFailed)
	}
	run = r
	testenv, err = e2eenv.NewWithContext(r.Context(ctx), envconf.New())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitFailed)
	}
	testenv.Setup(recordSetup(lifecycle.Preflight()), prebuild(ctx, r), recordSetup(lifecycle.CreateCluster()))
	testenv.Finish(finish(ctx), lifecycle.DestroyCluster())
	code := testenv.Run(m)
	r.Run.StopPrebuild()
	rep := r.Finish(stopped(ctx)) // written by finish already, unless the setup failed
	switch {
	case ctx.Err() != nil:
		code = exitInterrupted
	case code == 0 && rep.Failed():
		code = exitFailed
	}
	os.Exit(code)
}

// parallel runs the plan on -clusters clusters at once: this binary again per
// cluster, each taking the next cell of the run's queue when free
// (pkg/runner.Parallel), and one report at the end. It prepares the host once first (Docker, tools, the
// mode), so the shards do not race to. Under go test's -timeout the clusters'
// runs get timeoutMargin less, so they stop, report and delete their clusters
// while this process still has the time to merge their reports.
func parallel() int {
	base, cancel := context.WithCancelCause(context.Background())
	ctx, limit := withTimeLimit(base)
	again := make(chan struct{})
	onInterrupt(cancel, "each cluster's run ends its cell, writes its report and deletes its cluster (unless KEEP=1)", func(sig os.Signal) {
		fmt.Fprintf(os.Stderr, "%s %s again: the clusters' runs leave at once; clusters may be left: make cluster-delete CLUSTER=%s-<n>\n",
			time.Now().Format("15:04:05"), sig, opts.Cluster)
		close(again)
	})
	r, err := newRunner(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if runner.IsBadInput(err) {
			return exitBadInput
		}
		return exitFailed
	}
	setupFailed := func(err error) int {
		fmt.Fprintln(os.Stderr, err)
		r.Finish("setup failed: " + err.Error())
		return exitFailed
	}
	if _, err := lifecycle.Preflight()(r.Context(ctx), nil); err != nil {
		return setupFailed(err)
	}
	r.Prebuild(ctx)
	defer r.Run.StopPrebuild()
	args := os.Args[1:]
	if limit > 3*timeoutMargin { // the clusters' runs keep a margin of their own too
		args = append(args, "-test.timeout", (limit - timeoutMargin).String()) // the last one wins
	}
	// DELIVER=registry: one registry for every cluster, each image pushed once
	name, err := r.Run.StartRegistry(r.Context(ctx))
	if err != nil {
		return setupFailed(err)
	}
	if name != "" {
		args = append(args, "-shared-registry", name)
		defer func() { _ = r.Run.StopRegistry(context.WithoutCancel(ctx)) }()
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitFailed
	}
	costs := opts.Costs // the times measured so far: -costs, else the reports the run's own sits among
	if costs == "" {
		costs = filepath.Dir(r.Dir)
	}
	return r.Parallel(ctx, opts.Clusters, schedule.ReadCosts(costs), self, args, again)
}

func newRunner(ctx context.Context) (*runner.Runner, error) {
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		return nil, err
	}
	switch {
	case conf.Enabled() && upg.Enabled():
		return nil, &runner.BadInput{Err: errors.New("make conform (CHART) and make upgrade-check (APPS) are two runs: name one")}
	case conf.Enabled():
		return conformRunner(ctx, cat, repo)
	case upg.Enabled():
		return upgradeRunner(ctx, cat, repo)
	}
	data, err := Matrix()
	if err != nil {
		return nil, err
	}
	return runner.New(ctx, opts, cat, data, Scenarios(), repo)
}

// conformRunner is make conform's run: the chart read and rendered, each
// check a cell of the scenario conform made from it. A chart that cannot
// be read is bad input, like an unknown scenario.
func conformRunner(ctx context.Context, cat *catalog.Catalog, repo string) (*runner.Runner, error) {
	if opts.Scenarios != "" || opts.Variants != "" || opts.Versions != "" || opts.Cells != "" {
		return nil, &runner.BadInput{Err: errors.New("make conform checks a chart: SCENARIO, VARIANT, COMPONENT_VERSION and CELLS are make e2e's (CHECKS chooses the checks)")}
	}
	mode, err := images.ParseMode(opts.Mode)
	if err != nil {
		return nil, &runner.BadInput{Err: err}
	}
	if mode == images.Auto && appcell.IsRepoURL(conf.Chart) {
		mode, _ = images.Detect(ctx, mode, images.HTTPProbe)
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return nil, err
	}
	// rendered for the first Kubernetes version of the run, as ArgoCD renders
	// it for the cluster's (a chart whose rendering differs between versions
	// is checked as it renders on that one)
	kube := cat.Kubernetes.DefaultVersion()
	if k := matrix.ParseList(opts.Kubernetes); len(k) > 0 {
		kubes, err := cat.Kubernetes.Select(k)
		if err != nil {
			return nil, &runner.BadInput{Err: err}
		}
		kube = kubes[0]
	}
	spec, err := conf.Resolve(ctx, appcell.Where{Repo: repo, CacheDir: cache, Online: mode == images.Online || opts.RegistryMirror != "",
		Kubernetes: kube.Version})
	if err != nil {
		return nil, &runner.BadInput{Err: err}
	}
	data, code, err := spec.Plan(cat)
	if err != nil {
		return nil, err
	}
	o := opts
	o.Scenarios = conform.Scenario
	if o.Command == "" {
		o.Command = spec.Command
		if o.ArgoCD != "" {
			o.Command += " ARGOCD=" + o.ArgoCD
		}
		if o.Kubernetes != "" {
			o.Command += " KUBERNETES=" + o.Kubernetes
		}
	}
	return runner.New(ctx, o, cat, data, code, repo)
}

// upgradeRunner is make upgrade-check's run: the Applications read and
// their sources found, each a cell of the scenario upgrade-check made from
// them, on FROM. An Application that cannot be read is bad input.
func upgradeRunner(ctx context.Context, cat *catalog.Catalog, repo string) (*runner.Runner, error) {
	if opts.Scenarios != "" || opts.Variants != "" || opts.Versions != "" || opts.Cells != "" || opts.ArgoCD != "" {
		return nil, &runner.BadInput{Err: errors.New("make upgrade-check checks Applications through an upgrade: SCENARIO, VARIANT, COMPONENT_VERSION, CELLS and ARGOCD are make e2e's (FROM and TO name the releases)")}
	}
	mode, err := images.ParseMode(opts.Mode)
	if err != nil {
		return nil, &runner.BadInput{Err: err}
	}
	if mode == images.Auto {
		mode, _ = images.Detect(ctx, mode, images.HTTPProbe)
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return nil, err
	}
	ro := opts
	ro.Repo = repo
	checked, err := upgrade.Validate(ctx, cat, upg, ro, mode, cache)
	if err != nil {
		return nil, err
	}
	route, err := measuredRoute(cat, checked.From, checked.To)
	if err != nil {
		return nil, err
	}
	data, code := upgrade.Plan(checked)
	o := opts
	o.Scenarios, o.ArgoCD = spec.Scenario, checked.From.String()
	if o.Command == "" {
		o.Command = checked.Command
		if o.Kubernetes != "" {
			o.Command += " KUBERNETES=" + o.Kubernetes
		}
	}
	r, err := runner.New(ctx, o, cat, data, code, repo)
	if err != nil {
		return nil, err
	}
	// the route table: printed before the first build, kept with the report
	table := route.Markdown()
	fmt.Print(table)
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.Dir, "route.md"), []byte(table), 0o644); err != nil {
		return nil, err
	}
	r.Run.Notes = append(r.Run.Notes, route.Notes()...)
	metrics := "the cluster: " + checked.Metrics.String()
	if checked.Metrics.On() {
		metrics += " (METRICS; applied by each cell before its Application, kept from one cell to the next)"
	}
	r.Run.Logf("plan: %s", metrics)
	r.Run.Notes = append(r.Run.Notes, metrics)
	return r, nil
}

// measuredRoute is every behaviour change the suite measured on the path
// from -> to, read from suites/matrix.yaml's expectations.
func measuredRoute(cat *catalog.Catalog, from, to catalog.Release) (route.Route, error) {
	data, err := Matrix()
	if err != nil {
		return route.Route{}, err
	}
	known, err := route.Patches(cat, data)
	if err != nil {
		return route.Route{}, err
	}
	return route.Of(data, known, from, to)
}

// interruptible is the run's context: cancelled by the first SIGINT or
// SIGTERM, and timeoutMargin before go test's -timeout, with the reason as its
// cause. A second signal leaves at once: it ends every process the run started
// and says what was being waited for and what is left.
func interruptible() context.Context {
	base, cancel := context.WithCancelCause(context.Background())
	ctx, _ := withTimeLimit(base)
	onInterrupt(cancel, "the current step is cancelled, no further cell starts; the report is written and the cluster deleted (unless KEEP=1)", func(sig os.Signal) {
		n := shell.KillAll()
		waiting := "nothing"
		if run != nil {
			waiting = run.Waiting()
		}
		fmt.Fprintf(os.Stderr, "%s %s again: leaving now (was waiting for: %s; %d command(s) ended). The cluster may be left: %s\n",
			time.Now().Format("15:04:05"), sig, waiting, n, "make cluster-delete CLUSTER="+opts.Cluster)
		os.Exit(exitInterrupted)
	})
	return ctx
}

// withTimeLimit is ctx cancelled timeoutMargin before go test's -timeout,
// with the reason as its cause, and that -timeout (0 when there is none, or
// too short to keep a margin).
func withTimeLimit(ctx context.Context) (context.Context, time.Duration) {
	t := flag.Lookup("test.timeout")
	if t == nil {
		return ctx, 0
	}
	d, ok := t.Value.(flag.Getter).Get().(time.Duration)
	if !ok || d <= 2*timeoutMargin {
		return ctx, 0
	}
	ctx, stopTimer := context.WithTimeoutCause(ctx, d-timeoutMargin,
		fmt.Errorf("interrupted: the run's time limit (-timeout %s) is %s away", d, timeoutMargin))
	_ = stopTimer // released with the process
	return ctx, d
}

// onInterrupt cancels the run on the first SIGINT or SIGTERM, saying what
// stopping does, and hands the second to again.
func onInterrupt(cancel context.CancelCauseFunc, stopping string, again func(os.Signal)) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		fmt.Fprintf(os.Stderr, "\n%s %s: stopping: %s. Press Ctrl-C again to leave at once.\n", time.Now().Format("15:04:05"), sig, stopping)
		cancel(fmt.Errorf("interrupted by %s", sig))
		again(<-sigs)
	}()
}

// setupErr is the error of a setup env func that failed.
var setupErr error

// prebuild starts the plan's ArgoCD builds beside the node image and the
// cluster (runner.Runner.Prebuild), under the run's context; TestMain stops
// it at the end (a prebuild stopped with the setup function, as in run
// 20261127-003339, built nothing).
func prebuild(run context.Context, r *runner.Runner) types.EnvFunc {
	return func(ctx context.Context, _ *envconf.Config) (context.Context, error) {
		r.Prebuild(run)
		return ctx, nil
	}
}

// recordSetup keeps the error of a setup step for the report.
func recordSetup(f types.EnvFunc) types.EnvFunc {
	return func(ctx context.Context, cfg *envconf.Config) (context.Context, error) {
		ctx, err := f(ctx, cfg)
		if err != nil {
			setupErr = err
		}
		return ctx, err
	}
}

// stopped is why the run stopped before its end, or "" when it did not.
func stopped(ctx context.Context) string {
	if ctx.Err() == nil {
		if setupErr != nil {
			return "setup failed: " + setupErr.Error()
		}
		return ""
	}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause.Error()
	}
	return "interrupted"
}

// finish exports the cluster's logs (not after an interrupt: the user asked
// to stop) and writes the report before the cluster goes.
func finish(run0 context.Context) types.EnvFunc {
	return func(ctx context.Context, _ *envconf.Config) (context.Context, error) {
		if run0.Err() == nil {
			run.SetWaiting("export the cluster's logs")
			if err := run.Run.ExportLogs(ctx, filepath.Join(run.Dir, "cluster-logs")); err != nil {
				run.Run.Logf("export cluster logs: %v", err)
			}
		}
		run.SetWaiting("write the report")
		run.Finish(stopped(run0))
		run.SetWaiting("delete the cluster " + opts.Cluster)
		return ctx, nil
	}
}

// exec runs a feature on t with e2e-framework. t is the cell's, shared by
// its repeats, and stays failed once a repeat failed: this feature failed
// when it turned t failed (or skipped) now. A repeat after a failed one
// still runs whole (it ended "reached no verdict" at its first stage: one
// ERROR in a REPEAT=10 cell made 8 of 10); its own failures stop it through
// its record (assert.Record), which Exec.run reads too.
func exec(t *testing.T) runner.Exec {
	return func(ctx context.Context, f features.Feature) bool {
		failed, skipped := t.Failed(), t.Skipped()
		testenv.WithContext(ctx).Test(t, f)
		return (failed || !t.Failed()) && (skipped || !t.Skipped())
	}
}
