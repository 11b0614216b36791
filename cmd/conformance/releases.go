package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/releases"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/schedule"
)

// releasesCommand finds the releases (pkg/releases) and plans the nightly
// from them: the table for people on stdout, the JSON for the workflow with
// -json (on stdout instead) or -o FILE (besides the table).
func releasesCommand(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	return findReleases(ctx, c.cat, c.data, fs, args, c.stdout, releases.GoCommand{})
}

// findReleases is releases, its releases read from src.
func findReleases(ctx context.Context, cat *catalog.Catalog, data *matrix.Data, fs *flag.FlagSet, args []string, stdout io.Writer, src releases.Source) error {
	modeFlag := fs.String("mode", "auto", "auto, online or offline: what this mode can build or pull")
	asJSON := fs.Bool("json", false, "print the JSON instead of the table")
	out := fs.String("o", "", "also write the JSON to this file")
	reports := fs.String("reports", "reports", "the reports whose measured cell times estimate the shards (as make plan)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &runner.BadInput{Err: fmt.Errorf("releases: unexpected argument %q", fs.Arg(0))}
	}
	mode, err := images.ParseMode(*modeFlag)
	if err != nil {
		return &runner.BadInput{Err: fmt.Errorf("releases: %w", err)}
	}
	mode, _ = images.Detect(ctx, mode, images.HTTPProbe)
	repo, err := os.Getwd()
	if err != nil {
		return err
	}
	f := &releases.Finder{Catalog: cat, Matrix: data, Source: src, Mode: mode, Repo: repo}
	r, err := f.Find(ctx)
	if err != nil {
		return err
	}
	if err := r.Plan(cat, data, schedule.ReadCosts(*reports)); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	js = append(js, '\n')
	if *out != "" {
		if err := os.WriteFile(*out, js, 0o644); err != nil {
			return fmt.Errorf("releases: %w", err)
		}
	}
	if *asJSON {
		_, err = stdout.Write(js)
		return err
	}
	_, err = io.WriteString(stdout, r.Text())
	return err
}
