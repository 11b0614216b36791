package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/report/nightly"
	"github.com/gitops-conformance/suite/pkg/report/render"
	"github.com/gitops-conformance/suite/pkg/runner"
)

const reportUsage = `report merge -o OUTDIR DIR...
                               merge the reports in DIR... (each holds report.json) into OUTDIR
  report render DIR            render report.md, report.html and junit.xml again from DIR/report.json
  report summary DIR           print DIR's report as a Markdown job summary (for $GITHUB_STEP_SUMMARY)
  report phases DIR            where DIR's run spent its time: per cell and in all, by phase (build, cluster,
                               install, steps, waits, holds, evidence, teardown), the run's setup and wall (make bench-quick)
  report compare [-names A,B] BASE OTHER
                               two runs of the same cells side by side (make bench): wall times, their
                               ratio, per-scenario times, every cell's outcome; exit 1 when an outcome differs
  report diff [-supported 3.4,3.5,3.6] [-history SITE] [-json FILE] OLD NEW
                               what changed from one night's report to the next: every cell whose outcome
                               changed, every new release that ran, every cell that stopped running (Markdown);
                               exit 1 when a change fails the nightly: on a supported ArgoCD line (every line
                               without -supported), not reported before in SITE's nights (-history)
  report history [-marks N] SITE
                               render SITE's index.html (per scenario, ArgoCD release x component version, the
                               outcome's history as a mark per night) and each night's page from
                               SITE/nights/<night>/report.json`

// reportCommand works on report directories: reports/<run-id>/ of any run,
// or a merged report. Nothing here needs a cluster or the catalog.
func reportCommand(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return &runner.BadInput{Err: errors.New("report: want merge, render, summary, phases, compare, diff or history")}
	}
	switch sub, rest := args[0], args[1:]; sub {
	case "merge":
		fs := flag.NewFlagSet("report merge", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		out := fs.String("o", "", "output directory")
		if err := fs.Parse(rest); err != nil {
			return &runner.BadInput{Err: fmt.Errorf("report merge: %w", err)}
		}
		return mergeReports(*out, fs.Args(), stdout)
	case "phases":
		if len(rest) != 1 {
			return &runner.BadInput{Err: fmt.Errorf("report phases: want one report directory, got %d arguments", len(rest))}
		}
		r, err := loadReportDir(rest[0])
		if err != nil {
			return err
		}
		_, err = io.WriteString(stdout, Phases(r))
		return err
	case "render", "summary":
		if len(rest) != 1 {
			return &runner.BadInput{Err: fmt.Errorf("report %s: want one report directory, got %d arguments", sub, len(rest))}
		}
		r, err := loadReportDir(rest[0])
		if err != nil {
			return err
		}
		if sub == "summary" {
			_, err = io.WriteString(stdout, render.Summary(r))
			return err
		}
		if err := render.WriteRenderings(r, r.Dir); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rendered %s/report.{md,html} and junit.xml\n", rest[0])
		return nil
	case "compare":
		fs := flag.NewFlagSet("report compare", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		names := fs.String("names", "base,other", "what to call the two runs, comma-separated")
		if err := fs.Parse(rest); err != nil || fs.NArg() != 2 {
			return &runner.BadInput{Err: fmt.Errorf("report compare: want [-names A,B] BASE OTHER (%v)", err)}
		}
		a, b, ok := strings.Cut(*names, ",")
		if !ok {
			return &runner.BadInput{Err: fmt.Errorf("report compare: -names %q: want two names, comma-separated", *names)}
		}
		base, err := loadReportDir(fs.Arg(0))
		if err != nil {
			return err
		}
		other, err := loadReportDir(fs.Arg(1))
		if err != nil {
			return err
		}
		c := nightly.Compare(base, other)
		if _, err := io.WriteString(stdout, c.Markdown(a, b)); err != nil {
			return err
		}
		if !c.Same() {
			return errors.New("report compare: the runs' outcomes differ")
		}
		return nil
	case "diff":
		return diffCommand(rest, stdout)
	case "history":
		return historyCommand(rest, stdout)
	}
	return &runner.BadInput{Err: fmt.Errorf("report: unknown subcommand %q (valid: merge, render, summary, compare, diff, history)", args[0])}
}

// mergeReports writes the merge of dirs' reports into out, its evidence links
// pointing into dirs. It leaves reports/latest alone: a merge is not a run.
func mergeReports(out string, dirs []string, stdout io.Writer) error {
	if out == "" || len(dirs) == 0 {
		return &runner.BadInput{Err: errors.New("report merge: want -o OUTDIR and at least one report directory")}
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return &runner.BadInput{Err: fmt.Errorf("report merge: %w", err)}
	}
	var runs []*report.Report
	for _, dir := range dirs {
		r, err := loadReportDir(dir)
		if err != nil {
			return err
		}
		if r.Dir == absOut {
			return &runner.BadInput{Err: fmt.Errorf("report merge: the output directory %q is one of the inputs", out)}
		}
		runs = append(runs, r)
	}
	if existing, err := report.Load(filepath.Join(out, "report.json")); err == nil && len(existing.Sources) == 0 {
		return &runner.BadInput{Err: fmt.Errorf("report merge: %q holds the report of run %s; merge into another directory", out, existing.RunID)}
	}
	merged, err := report.Merge(runs...)
	if err != nil {
		return &runner.BadInput{Err: err}
	}
	if err := merged.Rebase(out); err != nil {
		return err
	}
	if err := render.WriteFiles(merged, out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "runs merged: %d, cells: %d; wrote %s/report.{json,md,html} and junit.xml\n", len(merged.Sources), len(merged.Cells), out)
	return nil
}

// loadReportDir loads dir/report.json; a missing directory or file is bad input.
func loadReportDir(dir string) (*report.Report, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, &runner.BadInput{Err: fmt.Errorf("report: %q is not a directory", dir)}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		return nil, &runner.BadInput{Err: fmt.Errorf("report: %q holds no report.json", dir)}
	}
	r, err := report.LoadDir(dir)
	if err != nil {
		return nil, &runner.BadInput{Err: err}
	}
	return r, nil
}

// diffCommand compares two nights' reports (report diff): the Markdown on
// stdout, the diff as JSON with -json; an error (exit 1) when a change
// fails the nightly.
func diffCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	supported := fs.String("supported", "", "the supported ArgoCD minor lines, comma-separated (3.4,3.5,3.6): a change fails only there; empty: everywhere")
	history := fs.String("history", "", "the published site: a change its nights' diff.json already reported does not fail again")
	out := fs.String("json", "", "also write the diff as JSON to this file")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
		return &runner.BadInput{Err: fmt.Errorf("report diff: want [-supported LINES] [-history SITE] [-json FILE] OLD NEW (%v)", orArgs(err, fs.NArg()))}
	}
	lines := matrix.ParseList(*supported)
	for _, l := range lines {
		if n, err := fmt.Sscanf(l, "%d.%d", new(int), new(int)); err != nil || n != 2 || strings.Count(l, ".") != 1 {
			return &runner.BadInput{Err: fmt.Errorf("report diff: -supported %q: want minor lines like 3.4,3.5,3.6", *supported)}
		}
	}
	old, err := loadReportDir(fs.Arg(0))
	if err != nil {
		return err
	}
	now, err := loadReportDir(fs.Arg(1))
	if err != nil {
		return err
	}
	d := nightly.DiffOf(old, now, lines)
	if *history != "" {
		if fi, err := os.Stat(*history); err != nil || !fi.IsDir() {
			return &runner.BadInput{Err: fmt.Errorf("report diff: -history %q is not a directory", *history)}
		}
		nights, err := nightly.LoadNights(*history)
		if err != nil {
			return err
		}
		var earlier []*nightly.Diff
		for _, n := range nights {
			if n.Diff != nil {
				earlier = append(earlier, n.Diff)
			}
		}
		d.MarkSeen(earlier)
	}
	if *out != "" {
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
			return fmt.Errorf("report diff: %w", err)
		}
	}
	if _, err := io.WriteString(stdout, d.Markdown()); err != nil {
		return err
	}
	if n := len(d.Failing()); n > 0 {
		return fmt.Errorf("report diff: %d change(s) on a supported ArgoCD line, not reported before", n)
	}
	return nil
}

func orArgs(err error, n int) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("got %d arguments", n)
}

// historyCommand renders a published site (report history): each night's
// page from its report.json, and the index.
func historyCommand(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("report history", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	marks := fs.Int("marks", 14, "how many of the newest nights the grids show a mark for")
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 {
		return &runner.BadInput{Err: fmt.Errorf("report history: want [-marks N] SITE (%v)", orArgs(err, fs.NArg()))}
	}
	if *marks < 1 {
		return &runner.BadInput{Err: fmt.Errorf("report history: -marks %d: want 1 or more", *marks)}
	}
	site := fs.Arg(0)
	nights, err := nightly.LoadNights(site)
	if err != nil {
		return &runner.BadInput{Err: fmt.Errorf("report history: %w", err)}
	}
	if len(nights) == 0 {
		return &runner.BadInput{Err: fmt.Errorf("report history: no night in %q (want %s/nights/<night>/report.json)", site, site)}
	}
	for _, n := range nights {
		if err := render.WriteRenderings(n.Page(), filepath.Join(site, "nights", n.ID)); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(site, "index.html"), []byte(nightly.History(nights, *marks)), 0o644); err != nil {
		return fmt.Errorf("report history: %w", err)
	}
	fmt.Fprintf(stdout, "rendered %s/index.html and %d night page(s)\n", site, len(nights))
	return nil
}
