package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report/nightly"
	"github.com/gitops-conformance/suite/pkg/report/render"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// nightlyMerge is report nightly-merge, the nightly's merge step: the
// reports the shards left under OUT/shards/<shard>/ merged into OUT; with
// -site, the published history, compared with the newest night there
// (OUT/diff.json, OUT/diff.md). The job summary starts with that
// comparison, then the merged report's summary, then every shard that left
// no report.json. An error (exit 1) when no shard left a report, or when a
// cell's outcome changed on a supported ArgoCD line (-supported; every line
// when empty) and no earlier night in the site reported that change.
func nightlyMerge(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	site := fs.String("site", "", "the published history (a checkout of gh-pages) to compare with")
	supported := fs.String("supported", "", "the supported ArgoCD minor lines, comma-separated (3.4,3.5,3.6): a change fails only there; empty: everywhere")
	summaryFile := fs.String("summary", os.Getenv("GITHUB_STEP_SUMMARY"), "append the job summary to this file (default: $GITHUB_STEP_SUMMARY, else stdout)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return &runner.BadInput{Err: fmt.Errorf("report nightly-merge: want [-site SITE] [-supported LINES] [-summary FILE] OUT, got %d arguments", fs.NArg())}
	}
	out := fs.Arg(0)
	summary := c.stdout
	if *summaryFile != "" {
		f, err := os.OpenFile(*summaryFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		summary = f
	}
	dirs, missing, err := shardReports(filepath.Join(out, "shards"))
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		line := fmt.Sprintf("## Conformance: no shard left a report.json under %s/shards/\n", out)
		fmt.Fprint(summary, line)
		return errors.New(strings.TrimSpace(line))
	}
	if err := mergeReports(out, dirs, c.stdout); err != nil {
		return err
	}
	merged, err := loadReportDir(out)
	if err != nil {
		return err
	}
	var failing error
	last := ""
	if *site != "" {
		last = nightly.NightBefore(*site, nightly.NightOf(merged))
	}
	switch {
	case last != "":
		md, err := os.Create(filepath.Join(out, nightly.DiffMarkdown))
		if err != nil {
			return err
		}
		failing = execute(ctx, cli{stdout: md}, []string{"report", "diff", "-supported", *supported, "-history", *site,
			"-json", filepath.Join(out, nightly.DiffJSON), last, out})
		if err := md.Close(); err != nil {
			return err
		}
		if runner.IsBadInput(failing) {
			return failing
		}
		data, err := os.ReadFile(md.Name())
		if err != nil {
			return err
		}
		if _, err := summary.Write(data); err != nil {
			return err
		}
	case *site != "":
		fmt.Fprintf(summary, "## Since the last night: no earlier night in %s\n\nThe first night: nothing to compare with.\n\n", *site)
	}
	if _, err := io.WriteString(summary, render.Summary(merged)); err != nil {
		return err
	}
	if len(missing) > 0 {
		fmt.Fprint(summary, "\n### Shards without a report\n\n")
		for _, m := range missing {
			fmt.Fprintf(summary, "- %s: no report.json (the job failed or timed out before writing it; see its log)\n", m)
		}
	}
	return failing
}

// shardReports finds each shard's report under dir (dir/<shard>/.../report.json):
// a run's own report, not its clusters' (a PARALLEL run's shards/<n>/, which
// its report already merges); missing are the shards with none.
func shardReports(dir string) (dirs, missing []string, err error) {
	shards, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, err
	}
	for _, s := range shards {
		if !s.IsDir() {
			continue
		}
		root := filepath.Join(dir, s.Name())
		var found []string
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "shards" && path != root {
				return filepath.SkipDir
			}
			if !d.IsDir() && d.Name() == "report.json" {
				found = append(found, filepath.Dir(path))
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		if len(found) == 0 {
			missing = append(missing, s.Name())
		}
		slices.Sort(found)
		dirs = append(dirs, found...)
	}
	return dirs, missing, nil
}

// reportPublish is report publish, the nightly's publish step: the merged
// report in OUT added to SITE as a night (nightly.Publish: the site's
// layout) and the site rendered again (report history). It commits
// nothing: the workflow does.
func reportPublish(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	releases := fs.String("releases", "", "make releases' JSON of this night, kept as the night's releases.json")
	runURL := fs.String("run-url", "", "the workflow run, whose artifact holds the evidence")
	keep := fs.Int("keep-nights", 90, "nights kept, the newest; older ones are removed (git keeps them)")
	marks := fs.Int("marks", 14, "how many of the newest nights the grids show a mark for")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return &runner.BadInput{Err: fmt.Errorf("report publish: want [flags] OUT SITE, got %d arguments", fs.NArg())}
	}
	out, site := fs.Arg(0), fs.Arg(1)
	if fi, err := os.Stat(filepath.Join(out, "report.json")); err != nil || fi.Size() == 0 {
		return &runner.BadInput{Err: fmt.Errorf("report publish: %s holds no report.json: nothing to publish", out)}
	}
	night, err := nightly.Publish(out, site, nightly.Publication{Releases: *releases, RunURL: *runURL, Keep: *keep})
	if err != nil {
		return err
	}
	if err := renderSite(site, *marks, c.stdout); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "report publish: night %s in %s\n", night, site)
	return nil
}

// reportNight is report night: the name a merged report's night has in the
// site (for the workflow's commit message).
func reportNight(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	r, err := oneReport(fs, args)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(c.stdout, nightly.NightOf(r))
	return err
}
