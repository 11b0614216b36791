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
)

// Quick is each scenario's quick tier (make e2e's default), one after the
// other, as a user at the keyboard runs it (make e2e, the binaries' build
// included): its plan's estimate, the wall time, and where the time went by
// phase, from each run's report (conformance bench quick, make
// bench-quick). It fails when a run fails, writes no report, or takes
// longer than Budget.
type Quick struct {
	Repo      string
	Scenarios []string
	Parallel  string // make e2e's PARALLEL
	Cluster   string
	Budget    time.Duration
	Reports   string // the runs' reports go under Reports/bench-quick-<time>/<scenario>/
	// Phases renders where a run's time went (conformance report phases).
	Phases func(*report.Report) string
	Out    io.Writer
}

// Plan is what Run does: a make e2e per scenario.
func (q Quick) Plan() string {
	var b strings.Builder
	for i, s := range q.Scenarios {
		fmt.Fprintf(&b, "%d. make e2e SCENARIO=%s PARALLEL=%s CLUSTER=%s E2E_REPORTS=%s/bench-quick-<time>/%s\n", i+1, s, q.Parallel, q.Cluster, q.Reports, s)
	}
	fmt.Fprintf(&b, "%d. each run's phases and the summary to %s/benchmarks/<time>-quick.md; fails over %d min\n", len(q.Scenarios)+1, q.Reports, int(q.Budget.Minutes()))
	return b.String()
}

// QuickRow is one scenario's line of the summary.
type QuickRow struct {
	Scenario, Run string
	Wall          time.Duration
	Exit          int
}

// Over reports whether the run took longer than budget.
func (r QuickRow) Over(budget time.Duration) bool { return r.Wall > budget }

// QuickSummary is the summary table of rows against budget.
func QuickSummary(rows []QuickRow, budget time.Duration) string {
	var b strings.Builder
	b.WriteString("| scenario | run | wall (make e2e, build of the binaries included) | budget | exit |\n|---|---|---|---|---|\n")
	min := int(budget.Minutes())
	for _, r := range rows {
		verdict := "within"
		if r.Over(budget) {
			verdict = "OVER"
		}
		s := int(r.Wall.Seconds())
		fmt.Fprintf(&b, "| %s | %s | %dm%ds | %s the %d min budget | exit %d |\n", r.Scenario, r.Run, s/60, s%60, verdict, min, r.Exit)
	}
	return b.String()
}

// Run runs the benchmark: nil when every run passed within the budget.
func (q Quick) Run(ctx context.Context) error {
	start := time.Now()
	out, err := File(q.Reports, "quick", start)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(filepath.Join(q.Reports, "bench-quick-"+start.UTC().Format("20060102-150405")))
	if err != nil {
		return err
	}
	var text strings.Builder
	fmt.Fprintf(&text, "# Each scenario's quick tier\n\n%s; PARALLEL=%s; budget %d min warm.\n", Machine(start), q.Parallel, int(q.Budget.Minutes()))
	_, in := e2erun.Watch(ctx)
	defer in.Stop()
	interrupted := in.Interrupted
	var rows []QuickRow
	failed := false
	for _, s := range q.Scenarios {
		fmt.Fprintf(q.Out, "== %s\n", s)
		dir := filepath.Join(root, s)
		run := &e2erun.Run{Bin: "make", Dir: q.Repo, Log: filepath.Join(dir, "make.log"), Echo: q.Out, Args: []string{
			"--no-print-directory", "e2e", "SCENARIO=" + s, "PARALLEL=" + q.Parallel, "CLUSTER=" + q.Cluster,
			"E2E_COMMAND=make bench-quick (" + s + ")", "E2E_REPORTS=" + dir}}
		t := time.Now()
		rc, err := in.Exec(run)
		if err != nil {
			return err
		}
		wall := time.Since(t)
		if rc == 130 || interrupted() {
			fmt.Fprintln(q.Out, "bench-quick: interrupted")
			return ErrInterrupted
		}
		r, err := e2erun.Report(dir)
		if err != nil {
			fmt.Fprintf(q.Out, "bench-quick: %s wrote no report (exit %d)\n", s, rc)
			failed = true
			continue
		}
		row := QuickRow{Scenario: s, Run: r.RunID, Wall: wall, Exit: rc}
		rows = append(rows, row)
		failed = failed || rc != 0 || row.Over(q.Budget)
		fmt.Fprintf(&text, "\n## %s (run %s, exit %d, %ds by the clock)\n\nreport: %s\n\n```\n%s```\n", s, r.RunID, rc, int(wall.Seconds()), r.Dir, q.Phases(r))
	}
	fmt.Fprintf(&text, "\n%s", QuickSummary(rows, q.Budget))
	if err := os.WriteFile(out, []byte(text.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprint(q.Out, text.String())
	fmt.Fprintf(q.Out, "bench-quick: %s\n", out)
	if failed {
		return fmt.Errorf("bench-quick: a run failed, wrote no report or went over the %d min budget (%s)", int(q.Budget.Minutes()), out)
	}
	return nil
}

// ErrInterrupted is a benchmark stopped by a Ctrl-C (exit status 130).
var ErrInterrupted = fmt.Errorf("interrupted")
