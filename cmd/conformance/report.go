package main

import (
	"context"
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

// reportCommand runs report's subcommands (report merge, ...) with args.
// They work on report directories: reports/<run-id>/ of any run, or a
// merged report. Nothing here needs a cluster or the catalog.
func reportCommand(args []string, stdout io.Writer) error {
	return execute(context.Background(), cli{stdout: stdout}, append([]string{"report"}, args...))
}

func reportMerge(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	out := fs.String("o", "", "output directory")
	if err := parse(fs, args); err != nil {
		return err
	}
	return mergeReports(*out, fs.Args(), c.stdout)
}

// oneReport parses the flags of a command that takes one report directory
// and loads it.
func oneReport(fs *flag.FlagSet, args []string) (*report.Report, error) {
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		return nil, &runner.BadInput{Err: fmt.Errorf("%s: want one report directory, got %d arguments", strings.TrimPrefix(fs.Name(), "conformance "), fs.NArg())}
	}
	return loadReportDir(fs.Arg(0))
}

func reportPhases(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	r, err := oneReport(fs, args)
	if err != nil {
		return err
	}
	_, err = io.WriteString(c.stdout, Phases(r))
	return err
}

func reportSummary(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	r, err := oneReport(fs, args)
	if err != nil {
		return err
	}
	_, err = io.WriteString(c.stdout, render.Summary(r))
	return err
}

func reportRender(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	r, err := oneReport(fs, args)
	if err != nil {
		return err
	}
	if err := render.WriteRenderings(r, r.Dir); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "rendered %s/report.{md,html} and junit.xml\n", fs.Arg(0))
	return nil
}

func reportCompare(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	names := fs.String("names", "base,other", "what to call the two runs, comma-separated")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return &runner.BadInput{Err: fmt.Errorf("report compare: want [-names A,B] BASE OTHER, got %d arguments", fs.NArg())}
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
	cmp := nightly.Compare(base, other)
	if _, err := io.WriteString(c.stdout, cmp.Markdown(a, b)); err != nil {
		return err
	}
	if !cmp.Same() {
		return errors.New("report compare: the runs' outcomes differ")
	}
	return nil
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
func diffCommand(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	supported := fs.String("supported", "", "the supported ArgoCD minor lines, comma-separated (3.4,3.5,3.6): a change fails only there; empty: everywhere")
	history := fs.String("history", "", "the published site: a change its nights' diff.json already reported does not fail again")
	out := fs.String("json", "", "also write the diff as JSON to this file")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return &runner.BadInput{Err: fmt.Errorf("report diff: want [-supported LINES] [-history SITE] [-json FILE] OLD NEW, got %d arguments", fs.NArg())}
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
	if _, err := io.WriteString(c.stdout, d.Markdown()); err != nil {
		return err
	}
	if n := len(d.Failing()); n > 0 {
		return fmt.Errorf("report diff: %d change(s) on a supported ArgoCD line, not reported before", n)
	}
	return nil
}

// historyCommand renders a published site (report history): each night's
// page from its report.json, and the index.
func historyCommand(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	marks := fs.Int("marks", 14, "how many of the newest nights the grids show a mark for")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return &runner.BadInput{Err: fmt.Errorf("report history: want [-marks N] SITE, got %d arguments", fs.NArg())}
	}
	if *marks < 1 {
		return &runner.BadInput{Err: fmt.Errorf("report history: -marks %d: want 1 or more", *marks)}
	}
	return renderSite(fs.Arg(0), *marks, c.stdout)
}

// renderSite renders a published site: each night's page and the index.
func renderSite(site string, marks int, stdout io.Writer) error {
	nights, err := nightly.LoadNights(site)
	if err != nil {
		return &runner.BadInput{Err: fmt.Errorf("report history: %w", err)}
	}
	if len(nights) == 0 {
		return &runner.BadInput{Err: fmt.Errorf("report history: no night in %q (want %s/nights/<night>/report.json)", site, site)}
	}
	for _, n := range nights {
		if err := render.WriteRenderings(n.Page(), nightly.NightDir(site, n.ID)); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(site, nightly.IndexFile), []byte(nightly.History(nights, marks)), 0o644); err != nil {
		return fmt.Errorf("report history: %w", err)
	}
	fmt.Fprintf(stdout, "rendered %s/index.html and %d night page(s)\n", site, len(nights))
	return nil
}
