package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/gitrepo"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/report/render"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/upgrade"
	"github.com/gitops-conformance/suite/pkg/upgrade/fleet"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
	"github.com/gitops-conformance/suite/suites"
)

// upgradeCheckApps is upgrade-check apps: make upgrade-check's default
// Applications, the seeds' charts as their scenarios install them.
func upgradeCheckApps(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	out := fs.String("out", "", "write the Applications and their charts into this directory")
	only := fs.String("only", "", "only these Applications, comma-separated")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return &runner.BadInput{Err: errors.New("upgrade-check apps: want -out DIR [-only NAME,...]")}
	}
	return writeSeedApps(ctx, c.stdout, *out, matrix.ParseList(*only))
}

// writeSeedApps writes the seed charts named (all for none) as
// Applications into out, a line each to stdout; what an earlier write left
// there of the others is taken away.
func writeSeedApps(ctx context.Context, stdout io.Writer, out string, names []string) error {
	apps, err := suites.SeedApps()
	if err != nil {
		return err
	}
	for _, n := range names {
		if !slices.ContainsFunc(apps, func(a suites.SeedApp) bool { return a.Name == n }) {
			var valid []string
			for _, a := range apps {
				valid = append(valid, a.Name)
			}
			return &runner.BadInput{Err: fmt.Errorf("upgrade-check apps: no application %q in suites/upgrade-check.yaml (valid: %s)", n, strings.Join(valid, ", "))}
		}
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	repo, err := os.Getwd() // make runs it from the checkout
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	// what an earlier write left of the seeds not asked for now would be
	// read as APPS too
	for _, a := range apps {
		for _, p := range []string{filepath.Join(out, a.Name+".yaml"), filepath.Join(out, a.Name)} {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
		}
	}
	var failed []error
	for _, a := range apps {
		if len(names) > 0 && !slices.Contains(names, a.Name) {
			continue
		}
		file, ch, err := a.Write(ctx, suites.Local{Repo: repo, Cache: cache}, out)
		if err != nil {
			// what the user provides (a variable, a source, a module): one line each
			failed = append(failed, fmt.Errorf("upgrade-check apps: %s: %s", a.Name, strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")))
			continue
		}
		fmt.Fprintf(stdout, "%s\t%s\tchart %s %s from %s\n", a.Name, file, ch.Name, ch.Version, ch.Source)
	}
	if len(failed) > 0 {
		return &runner.BadInput{Err: errors.Join(failed...)}
	}
	return nil
}

// upgradeCheckSettings is upgrade-check settings: spec.Settings, one
// paragraph each.
func upgradeCheckSettings(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	// the flags' own help: the shared ones' is appcell.Shared's
	var u spec.Options
	flags := flag.NewFlagSet("settings", flag.ContinueOnError)
	u.Register(flags)
	u.Shared.Register(flags)
	for _, s := range spec.Settings {
		where := "-" + s.Flag
		if s.YAML != "" {
			where += ", " + s.YAML + ": in a validation"
		}
		fmt.Fprintf(c.stdout, "%s (%s)\n    %s\n", s.Make, where, flags.Lookup(s.Flag).Usage)
	}
	return nil
}

// upgradeCheckInput is upgrade-check check: make upgrade-check's input
// checked (upgrade.Validate) with the flags the test binary takes.
func upgradeCheckInput(ctx context.Context, _ cli, fs *flag.FlagSet, args []string) error {
	var u spec.Options
	var o runner.Options
	u.Register(fs)
	u.Shared.Register(fs)
	o.Register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := spec.FromEnv(fs, os.Getenv); err != nil { // make's variables (spec.Settings)
		return &runner.BadInput{Err: err}
	}
	u.From, u.To = o.From, o.To // -from and -to: runner.Options', bisect's too
	cat, err := catalog.Load()
	if err != nil {
		return err
	}
	mode, err := images.ParseMode(o.Mode)
	if err != nil {
		return &runner.BadInput{Err: err}
	}
	if o.RegistryMirror != "" {
		mode = images.Online
	}
	mode, _ = images.Detect(ctx, mode, images.HTTPProbe)
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	if o.Repo, err = os.Getwd(); err != nil { // make runs it from the checkout
		return err
	}
	checked, err := upgrade.Validate(ctx, cat, u, o, mode, cache)
	if checked != nil {
		for _, r := range checked.Refused {
			fmt.Fprintf(os.Stderr, "upgrade-check: not taken: %s\n", r)
		}
	}
	return err
}

// upgradeCheckFleetRepo is upgrade-check fleet-repo: the fleet fixture, or
// make bench-upgrade-check's fleet of -n Applications, written as a git
// checkout.
func upgradeCheckFleetRepo(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	out := fs.String("out", "", "write the checkout into this directory (replaced)")
	n := fs.Int("n", 0, "make bench-upgrade-check's fleet of N Applications in place of the fleet fixture")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 || *n < 0 || *n == 1 {
		return &runner.BadInput{Err: errors.New("upgrade-check fleet-repo: want -out DIR [-n N, N >= 2]")}
	}
	var err error
	if *n > 0 {
		err = gitrepo.WriteBenchRepo(ctx, *out, *n)
	} else {
		err = gitrepo.WriteTeamRepo(ctx, *out)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s\t%s\tAPPS=%s\n", *out, gitrepo.TeamURL, filepath.Join(*out, "apps"))
	return nil
}

// upgradeCheckBench is upgrade-check bench: a fleet run's phases, from its
// report (the fleet cell's FleetTimes), as make bench-upgrade-check prints
// them.
func upgradeCheckBench(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return &runner.BadInput{Err: errors.New("upgrade-check bench: want REPORT_DIR (a fleet run's report, e.g. reports/latest)")}
	}
	dir := fs.Arg(0)
	rep, err := report.LoadDir(dir)
	if err != nil {
		return &runner.BadInput{Err: fmt.Errorf("upgrade-check bench: %w", err)}
	}
	times, _ := filepath.Glob(filepath.Join(dir, "cells", "*", fleet.FleetTimes))
	if len(times) != 1 {
		return &runner.BadInput{Err: fmt.Errorf("upgrade-check bench: %s holds no fleet run's %s (a run that did not reach its verdicts, or not a fleet's)", dir, fleet.FleetTimes)}
	}
	data, err := os.ReadFile(times[0])
	if err != nil {
		return err
	}
	var marks []fleet.Mark
	if err := json.Unmarshal(data, &marks); err != nil {
		return fmt.Errorf("%s: %w", times[0], err)
	}
	var from, to string
	if len(rep.Cells) > 0 {
		from = rep.Cells[0].ArgoCD // every cell's: the fleet's FROM
	}
	for _, m := range marks {
		if r, ok := strings.CutPrefix(m.Phase, "read-"); ok && r != from {
			to = r
		}
	}
	apps := len(rep.Cells)
	w := c.stdout
	fmt.Fprintf(w, "## make bench-upgrade-check: %d Applications, %s -> %s (run %s)\n\n", apps, from, to, rep.RunID)
	fmt.Fprintf(w, "| phase | seconds |\n|---|---|\n")
	for _, k := range []string{"setup", "setup_build"} {
		if v, ok := rep.Phases[k]; ok {
			fmt.Fprintf(w, "| run %s (before the fleet's cell) | %.0f |\n", strings.ReplaceAll(k, "_", " "), v)
		}
	}
	if len(rep.Cells) > 0 {
		for _, k := range slices.Sorted(maps.Keys(rep.Cells[0].Phases)) {
			fmt.Fprintf(w, "| cell: %s | %.0f |\n", k, rep.Cells[0].Phases[k])
		}
	}
	for _, m := range marks[min(1, len(marks)):] {
		fmt.Fprintf(w, "| fleet: %s | %.1f |\n", m.Phase, m.Seconds)
	}
	wall := rep.Finished.Sub(rep.Started).Seconds()
	fmt.Fprintf(w, "| **the run, start to report** | **%.0f** |\n\n", wall)
	if len(marks) > 1 {
		// from the Applications created to TO's reads: every Application
		// rendered and read on both releases, and the upgrade between
		span := marks[len(marks)-1].At.Sub(marks[0].At).Seconds()
		fmt.Fprintf(w, "%d Applications through both releases in %.0f s of the fleet's steps: %.2f Applications a second (%.2f over the whole run).\n", apps, span, float64(apps)/span, float64(apps)/wall)
	}
	fmt.Fprintf(w, "Verdicts: %s.\n", render.CountsText(rep.Cells))
	return nil
}

// upgradeCheckPR is upgrade-check pr: the ArgoCD upgrade a pull request
// makes (gitrepo.FindBump), as the upgrade-check workflow reads it.
func upgradeCheckPR(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	repo := fs.String("repo", ".", "the pull request's checkout, with its base and head fetched")
	base := fs.String("base", "", "the pull request's base commit")
	head := fs.String("head", "HEAD", "the pull request's head commit")
	index := fs.String("chart-index", "", "the argo-helm repository's index.yaml (a file), for a pin of the argo-cd chart")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *base == "" || fs.NArg() > 0 {
		return &runner.BadInput{Err: errors.New("upgrade-check pr: want -base COMMIT [-head COMMIT] [-repo DIR] [-chart-index FILE]")}
	}
	var idx gitrepo.ChartIndex
	if *index != "" {
		data, err := os.ReadFile(*index)
		if err != nil {
			return &runner.BadInput{Err: fmt.Errorf("upgrade-check pr: -chart-index: %w", err)}
		}
		if idx, err = gitrepo.ParseChartIndex(data); err != nil {
			return &runner.BadInput{Err: fmt.Errorf("upgrade-check pr: -chart-index: %w", err)}
		}
	}
	b, err := gitrepo.FindBump(ctx, *repo, *base, *head, idx)
	if err != nil {
		return &runner.BadInput{Err: fmt.Errorf("upgrade-check pr: %w", err)}
	}
	fmt.Fprintf(c.stdout, "from=%s\nto=%s\nfiles=%s\n", b.From, b.To, strings.Join(b.Files, ","))
	return nil
}
