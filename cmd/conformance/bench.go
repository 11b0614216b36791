package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/bench"
	"github.com/gitops-conformance/suite/internal/host"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// benchStatus is a benchmark's error as the CLI's exit status: 130 when it
// was interrupted.
func benchStatus(err error) error {
	if errors.Is(err, bench.ErrInterrupted) {
		return &exitStatus{130, err}
	}
	return err
}

// benchArgs checks a benchmark's arguments (none) and returns the checkout.
func benchArgs(fs *flag.FlagSet, name string) (string, error) {
	if fs.NArg() > 0 {
		return "", &runner.BadInput{Err: fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0))}
	}
	return os.Getwd() // make runs it from the checkout
}

// e2eBinary is the e2e test binary, absolute; bad input when it is missing.
func e2eBinary(path, name string) (string, error) {
	bin, err := filepath.Abs(path)
	if err != nil || !exists(bin) {
		return "", &runner.BadInput{Err: fmt.Errorf("%s: %s missing: run make %s", name, path, path)}
	}
	return bin, nil
}

// benchQuick is bench quick (make bench-quick).
func benchQuick(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	scenarios := fs.String("scenario", "", "scenarios, comma-separated (default: every scenario) (make: BENCH_SCENARIO)")
	parallel := fs.String("parallel", "auto", "make e2e's PARALLEL (make: BENCH_PARALLEL)")
	cluster := fs.String("cluster", "bench-quick", "the runs' kind cluster (make: BENCH_CLUSTER)")
	budget := fs.Duration("budget", 15*time.Minute, "how long a quick tier may take warm; longer fails the benchmark (make: BENCH_BUDGET, minutes)")
	reports := fs.String("reports", "reports", "the runs' reports go under DIR/bench-quick-<time>/<scenario>/, the figures to DIR/benchmarks/")
	plan := fs.Bool("plan", false, "print what the benchmark runs, and run nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	repo, err := benchArgs(fs, "bench quick")
	if err != nil {
		return err
	}
	list := matrix.ParseList(*scenarios)
	if len(list) == 0 && c.data != nil {
		list = c.data.Names()
	}
	for _, s := range list {
		if _, err := c.data.Scenario(s); err != nil {
			return &runner.BadInput{Err: fmt.Errorf("bench quick: %w", err)}
		}
	}
	q := bench.Quick{Repo: repo, Scenarios: list, Parallel: *parallel, Cluster: *cluster, Budget: *budget, Reports: *reports, Phases: Phases, Out: c.stdout}
	if *plan {
		_, err := fmt.Fprint(c.stdout, q.Plan())
		return err
	}
	return benchStatus(q.Run(ctx))
}

// benchMatrix is bench matrix (make bench).
func benchMatrix(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	e2e := fs.String("e2e", "bin/e2e.test", "the e2e test binary (make builds it)")
	var o runner.Options
	fs.StringVar(&o.Scenarios, "scenario", "", "narrow both runs to these scenarios (make: BENCH_SCENARIO)")
	fs.StringVar(&o.Variants, "variant", "", "narrow both runs to these variants (make: BENCH_VARIANT)")
	fs.StringVar(&o.ArgoCD, "argocd", "", "narrow both runs to these ArgoCD releases (make: BENCH_ARGOCD)")
	parallel := fs.Int("parallel", 3, "the second run's clusters (make: BENCH_PARALLEL, default MATRIX_PARALLEL, 3 for auto)")
	deliver := fs.String("deliver", "load", "the second run's DELIVER (make: BENCH_DELIVER, default DELIVER)")
	prefix := fs.String("cluster", "bench", "cluster name prefix: <prefix>-seq, <prefix>-par (make: BENCH_CLUSTER)")
	reports := fs.String("reports", "reports", "the runs' reports go under DIR/bench-<time>/, the figures to DIR/benchmarks/")
	plan := fs.Bool("plan", false, "print the selection's plan and the two runs, and run nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	repo, err := benchArgs(fs, "bench matrix")
	if err != nil {
		return err
	}
	if *parallel < 1 || *parallel > runner.MaxClusters {
		return &runner.BadInput{Err: fmt.Errorf("bench matrix: -parallel %d: 1 to %d", *parallel, runner.MaxClusters)}
	}
	o.Tier, o.Mode, o.Repeat, o.Clusters, o.Deliver, o.Unmeasured, o.Repo = matrix.TierFull, "auto", 1, 1, "load", "ok", repo
	cells, err := runner.Validate(ctx, c.cat, c.data, o) // the check: bad input ends here, nothing started
	if err != nil {
		return err
	}
	what := "the default matrix"
	if o.Scenarios+o.Variants+o.ArgoCD != "" {
		what = fmt.Sprintf("SCENARIO=%s VARIANT=%s ARGOCD=%s", o.Scenarios, o.Variants, o.ArgoCD)
	}
	m := bench.Matrix{E2E: *e2e, Repo: repo, Selection: []string{"-scenario", o.Scenarios, "-variant", o.Variants, "-argocd", o.ArgoCD},
		What: what, Parallel: *parallel, Deliver: *deliver, Prefix: *prefix, Reports: *reports, Out: c.stdout}
	if *plan {
		fmt.Fprintf(c.stdout, "%s: %d cell(s), run twice:\n", what, len(cells))
		for _, n := range []int{1, *parallel} {
			f, err := forecast(ctx, c.cat, cells, o, fmt.Sprint(n))
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "on %d cluster(s): estimate warm %s, cold %s\n", n, f.Warm().Round(time.Minute), f.Cold().Round(time.Minute))
		}
		_, err := fmt.Fprint(c.stdout, m.Plan())
		return err
	}
	if m.E2E, err = e2eBinary(*e2e, "bench matrix"); err != nil {
		return err
	}
	return benchStatus(m.Run(ctx))
}

// benchInfra is bench infra (make bench-infra).
func benchInfra(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	e2e := fs.String("e2e", "bin/e2e.test", "the e2e test binary (make builds it)")
	argocd := fs.String("argocd", "", "ArgoCD releases to measure, comma-separated (default: the catalog's smoke release) (make: BENCH_ARGOCD)")
	kube := fs.String("kubernetes", "", "the Kubernetes version (default: the catalog's) (make: SMOKE_KUBERNETES)")
	cells := fs.String("cells", "bug,ignore-differences", "the kubeovn-argocd variants of the cluster reuse comparison (make: BENCH_CELLS)")
	cluster := fs.String("cluster", "bench", "the benchmark's kind cluster (make: BENCH_CLUSTER)")
	cold := fs.Bool("cold", false, "remove the cached Kubernetes, etcd and CoreDNS binaries first (make: BENCH_COLD=1)")
	reports := fs.String("reports", "reports", "the figures go to DIR/benchmarks/")
	plan := fs.Bool("plan", false, "print what the benchmark does, and do nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	repo, err := benchArgs(fs, "bench infra")
	if err != nil {
		return err
	}
	tags := matrix.ParseList(*argocd)
	if len(tags) == 0 {
		tags = []string{c.cat.ArgoCD.Smoke}
	}
	if _, err := c.cat.Releases(tags); err != nil {
		return &runner.BadInput{Err: fmt.Errorf("bench infra: %w", err)}
	}
	k, err := c.cat.Kubernetes.Get(cmpOr(*kube, c.cat.Kubernetes.Default))
	if err != nil {
		return &runner.BadInput{Err: fmt.Errorf("bench infra: %w", err)}
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	b := bench.Infra{E2E: *e2e, Repo: repo, CacheDir: cache, Catalog: c.cat, Kubernetes: k, ArgoCD: tags, Cells: matrix.ParseList(*cells),
		Cluster: *cluster, Cold: *cold, Reports: *reports, Out: c.stdout}
	if *plan {
		_, err := fmt.Fprint(c.stdout, b.Plan())
		return err
	}
	if b.E2E, err = e2eBinary(*e2e, "bench infra"); err != nil {
		return err
	}
	return benchStatus(b.Run(ctx))
}

// benchDelivery is bench delivery (make bench-delivery).
func benchDelivery(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	argocd := fs.String("argocd", "", "ArgoCD releases, comma-separated (default: the catalog's default axis) (make: BENCH_ARGOCD)")
	prefix := fs.String("cluster", "bench-delivery", "name prefix: <prefix>-load, <prefix>-pull, <prefix>-registry (make: BENCH_CLUSTER)")
	reports := fs.String("reports", "reports", "the figures go to DIR/benchmarks/")
	plan := fs.Bool("plan", false, "print what the benchmark does, and do nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	repo, err := benchArgs(fs, "bench delivery")
	if err != nil {
		return err
	}
	tags := matrix.ParseList(*argocd)
	if len(tags) == 0 {
		tags = c.cat.ArgoCD.Default
	}
	if _, err := c.cat.Releases(tags); err != nil {
		return &runner.BadInput{Err: fmt.Errorf("bench delivery: %w", err)}
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	d := bench.Delivery{Repo: repo, CacheDir: cache, Catalog: c.cat, ArgoCD: tags, Prefix: *prefix, Reports: *reports, Out: c.stdout}
	if *plan {
		_, err := fmt.Fprint(c.stdout, d.Plan())
		return err
	}
	return benchStatus(d.Run(ctx))
}

func cmpOr(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// benchProbe prints host.Probe, -n times, and the median's factor against
// each machine whose figures the plan scales: how a machine's probe for
// coldcost.yaml is measured (on an idle machine, as its builds ran).
func benchProbe(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	n := fs.Int("n", 5, "probes")
	if err := parse(fs, args); err != nil {
		return err
	}
	if _, err := benchArgs(fs, "bench probe"); err != nil {
		return err
	}
	if *n < 1 {
		return &runner.BadInput{Err: fmt.Errorf("bench probe: -n %d: at least one probe", *n)}
	}
	probes := make([]time.Duration, *n)
	for i := range probes {
		probes[i] = host.Probe()
		fmt.Fprintf(c.stdout, "probe %d: %.3fs (load average %s)\n", i+1, probes[i].Seconds(), host.LoadAverages())
	}
	slices.Sort(probes)
	median := probes[len(probes)/2]
	fmt.Fprintf(c.stdout, "median of %d: %.3fs on %d core(s)\n", *n, median.Seconds(), runtime.NumCPU())
	for _, s := range runner.Speeds(median) {
		fmt.Fprintf(c.stdout, "  against %s\n", s)
	}
	return nil
}

// benchBuilds is bench builds (make bench-builds).
func benchBuilds(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	list := fs.String("builds", "kyverno@v1.14.0,kargo@v1.11.2,metrics-server@v0.9.0",
		"component releases to build cold, comma-separated component@version (make: BENCH_BUILDS; default: those coldcost.yaml priced by a guess, at the versions the quick tiers build)")
	reports := fs.String("reports", "reports", "the figures go to DIR/benchmarks/")
	plan := fs.Bool("plan", false, "print what the benchmark does, and do nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	repo, err := benchArgs(fs, "bench builds")
	if err != nil {
		return err
	}
	var builds []lifecycle.ComponentBuild
	for _, spec := range matrix.ParseList(*list) {
		cb, err := runner.ComponentBuildOf(c.cat, repo, spec)
		if err != nil {
			return &runner.BadInput{Err: fmt.Errorf("bench builds: %w", err)}
		}
		builds = append(builds, cb)
	}
	if len(builds) == 0 {
		return &runner.BadInput{Err: fmt.Errorf("bench builds: -builds names no component@version")}
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	b := bench.Builds{Repo: repo, CacheDir: cache, Catalog: c.cat, Builds: builds, Reports: *reports, Out: c.stdout}
	if *plan {
		_, err := fmt.Fprint(c.stdout, b.Plan())
		return err
	}
	return benchStatus(b.Run(ctx))
}
