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

const upgradeCheckUsage = `upgrade-check check -from TAG -to TAG -apps FILE|DIR [make upgrade-check's other flags, -mode ...]
                               make upgrade-check's input checked before anything is built: the
                               releases, the Applications and their sources; exit 2 with one line
  upgrade-check apps -out DIR [-only NAME,...]
                               make upgrade-check's default APPS (suites/upgrade-check.yaml): each seed's
                               chart made as DIR/NAME/ and its Application written as DIR/NAME.yaml;
                               a line per Application (its name, file and chart); exit 2 when one
                               cannot be made (a variable unset, a module the proxy refuses)`

// upgradeCheckCommand is make upgrade-check's side that needs no cluster:
// the default Applications.
func upgradeCheckCommand(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "check" {
		return upgradeCheckInput(ctx, args[1:])
	}
	if len(args) == 0 || args[0] != "apps" {
		return &runner.BadInput{Err: errors.New("upgrade-check: want check or apps")}
	}
	fs := flag.NewFlagSet("upgrade-check apps", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "write the Applications and their charts into this directory")
	only := fs.String("only", "", "only these Applications, comma-separated")
	if err := fs.Parse(args[1:]); err != nil {
		return &runner.BadInput{Err: fmt.Errorf("upgrade-check apps: %w", err)}
	}
	if *out == "" || fs.NArg() > 0 {
		return &runner.BadInput{Err: errors.New("upgrade-check apps: want -out DIR [-only NAME,...]")}
	}
	apps, err := suites.SeedApps()
	if err != nil {
		return err
	}
	names := matrix.ParseList(*only)
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
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	// what an earlier write left of the seeds not asked for now would be
	// read as APPS too
	for _, a := range apps {
		for _, p := range []string{filepath.Join(*out, a.Name+".yaml"), filepath.Join(*out, a.Name)} {
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
		file, ch, err := a.Write(ctx, suites.Local{Repo: repo, Cache: cache}, *out)
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
func upgradeCheckInput(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("upgrade-check check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var u upgrade.Options
	var o runner.Options
	u.Register(fs)
	u.Shared.Register(fs)
	o.Register(fs)
	if err := fs.Parse(args); err != nil {
		return &runner.BadInput{Err: fmt.Errorf("upgrade-check check: %w", err)}
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
