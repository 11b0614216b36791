package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
)

const reportUsage = `report merge -o OUTDIR DIR...
                               merge the reports in DIR... (each holds report.json) into OUTDIR
  report render DIR            render report.md, report.html and junit.xml again from DIR/report.json
  report summary DIR           print DIR's report as a Markdown job summary (for $GITHUB_STEP_SUMMARY)
  report compare [-names A,B] BASE OTHER
                               two runs of the same cells side by side (make bench): wall times, their
                               ratio, per-scenario times, every cell's outcome; exit 1 when an outcome differs`

// reportCommand works on report directories: reports/<run-id>/ of any run,
// or a merged report. Nothing here needs a cluster or the catalog.
func reportCommand(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return &runner.BadInput{Err: errors.New("report: want merge, render, summary or compare")}
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
	case "render", "summary":
		if len(rest) != 1 {
			return &runner.BadInput{Err: fmt.Errorf("report %s: want one report directory, got %d arguments", sub, len(rest))}
		}
		r, err := loadReportDir(rest[0])
		if err != nil {
			return err
		}
		if sub == "summary" {
			_, err = io.WriteString(stdout, r.Summary())
			return err
		}
		if err := r.Render(r.Dir); err != nil {
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
		c := report.Compare(base, other)
		if _, err := io.WriteString(stdout, c.Markdown(a, b)); err != nil {
			return err
		}
		if !c.Same() {
			return errors.New("report compare: the runs' outcomes differ")
		}
		return nil
	}
	return &runner.BadInput{Err: fmt.Errorf("report: unknown subcommand %q (valid: merge, render, summary, compare)", args[0])}
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
	if err := merged.WriteFiles(out); err != nil {
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
