package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/upgrade"
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

// upgradeCheckInput is upgrade-check check: make upgrade-check's input
// checked (upgrade.Validate) with the flags the test binary takes.
func upgradeCheckInput(ctx context.Context, _ cli, fs *flag.FlagSet, args []string) error {
	var u upgrade.Options
	var o runner.Options
	u.Register(fs)
	u.Shared.Register(fs)
	o.Register(fs)
	if err := parse(fs, args); err != nil {
		return err
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
	_, err = upgrade.Validate(ctx, cat, u, o, mode, cache)
	return err
}
