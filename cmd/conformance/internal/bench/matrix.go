package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/e2erun"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/report/nightly"
)

// Matrix is the matrix run twice, side by side, warm caches (conformance
// bench matrix, make bench): sequential (one cluster, one cell after
// another, images by kind load: how the matrix ran before -clusters), then
// on Parallel clusters delivering by Deliver. Both reports are compared
// cell by cell; the benchmark fails when an outcome differs (running
// faster must not change a verdict).
type Matrix struct {
	E2E, Repo string
	Selection []string // the test binary's selection flags, both runs alike
	What      string   // the selection, in words
	Parallel  int
	Deliver   string
	Prefix    string // cluster names: <prefix>-seq, <prefix>-par
	Reports   string // the runs' reports go under Reports/bench-<time>/<run>/
	Out       io.Writer
}

// MatrixRun is one of the two runs.
type MatrixRun struct {
	Name string
	Args []string
}

// Runs are the two runs, in order.
func (m Matrix) Runs() []MatrixRun {
	return []MatrixRun{
		{"sequential", []string{"-clusters", "1", "-deliver", "load", "-cluster", m.Prefix + "-seq"}},
		{fmt.Sprintf("PARALLEL=%d", m.Parallel), []string{"-clusters", fmt.Sprint(m.Parallel), "-deliver", m.Deliver, "-cluster", m.Prefix + "-par"}},
	}
}

// Plan is what Run does: the two runs' command lines.
func (m Matrix) Plan() string {
	var b strings.Builder
	for i, mr := range m.Runs() {
		fmt.Fprintf(&b, "%d. %s: (cd suites && %s -test.run TestMatrix %s %s -reports %s/bench-<time>/...)\n", i+1, mr.Name, m.E2E,
			strings.Join(m.Selection, " "), strings.Join(mr.Args, " "), m.Reports)
	}
	fmt.Fprintf(&b, "%d. both reports compared cell by cell, to %s/benchmarks/<time>-matrix.md; fails when an outcome differs\n", len(m.Runs())+1, m.Reports)
	return b.String()
}

// Ratio says how the parallel wall time compares with the sequential one.
func Ratio(sequential, parallel time.Duration) string {
	if sequential <= 0 || parallel <= 0 {
		return "no ratio (a run took no time)"
	}
	r := parallel.Seconds() / sequential.Seconds()
	return fmt.Sprintf("%.2f (%.1fx as fast)", r, 1/r)
}

// Run runs the benchmark: nil when both runs wrote a report and their
// outcomes are the same.
func (m Matrix) Run(ctx context.Context) error {
	start := time.Now()
	out, err := File(m.Reports, "matrix", start)
	if err != nil {
		return err
	}
	reports, err := filepath.Abs(m.Reports) // the test binary runs in suites/
	if err != nil {
		return err
	}
	root := filepath.Join(reports, "bench-"+start.UTC().Format("20060102-150405"))
	_, in := e2erun.Watch(ctx)
	defer in.Stop()
	interrupted := in.Interrupted
	var runs []*report.Report
	var walls []time.Duration
	for _, mr := range m.Runs() {
		fmt.Fprintf(m.Out, "== %s: %s (%s)\n", mr.Name, m.What, strings.Join(mr.Args, " "))
		dir := filepath.Join(root, strings.ToLower(strings.SplitN(mr.Name, "=", 2)[0]))
		args := append(append([]string{"-test.run", "TestMatrix", "-test.count=1", "-test.timeout", "600m"}, m.Selection...), mr.Args...)
		run := e2erun.E2E(m.E2E, m.Repo, dir+".log", append(args, "-command", "make bench ("+mr.Name+")", "-reports", dir, "-costs", reports)...)
		run.Echo = m.Out
		t := time.Now()
		rc, err := in.Exec(run)
		if err != nil {
			return err
		}
		wall := time.Since(t)
		if rc == 130 || interrupted() {
			fmt.Fprintln(m.Out, "bench: interrupted")
			return ErrInterrupted
		}
		r, err := e2erun.Report(dir)
		if err != nil {
			return fmt.Errorf("bench: the %s run wrote no report (exit %d): %w", mr.Name, rc, err)
		}
		fmt.Fprintf(m.Out, "== %s: exit %d in %ds, report %s\n", mr.Name, rc, int(wall.Seconds()), r.Dir)
		runs, walls = append(runs, r), append(walls, wall)
	}
	cmp := nightly.Compare(runs[0], runs[1])
	text := fmt.Sprintf("# The matrix: one cluster vs %d at once\n\n%s; %s.\n", m.Parallel, Machine(time.Now()), m.What) +
		"Process wall time (cluster creation, every cell, cluster deletion; the binaries were built before):\n" +
		fmt.Sprintf("sequential %d s (PARALLEL=1 DELIVER=load), PARALLEL=%d DELIVER=%s %d s: ratio %s.\n\n",
			int(walls[0].Seconds()), m.Parallel, m.Deliver, int(walls[1].Seconds()), Ratio(walls[0], walls[1])) +
		cmp.Markdown("PARALLEL=1", fmt.Sprintf("PARALLEL=%d", m.Parallel))
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprint(m.Out, text)
	fmt.Fprintf(m.Out, "written to %s\n", out)
	if !cmp.Same() {
		return fmt.Errorf("bench: the two runs' outcomes differ (see %s)", out)
	}
	return nil
}
