package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// defaultRegistry is the local registry's container name when none is given.
const defaultRegistry = "gitops-conformance-registry"

// registryCommand drives the suite's local registry from scripts
// (scripts; conformance selftest mirror drives it in-process): the registry a MODE=online run with
// REGISTRY_MIRROR is tested against here.
func registryCommand(sub string) func(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	return func(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
		return registryRun(ctx, c.cat, sub, fs, args, c.stdout)
	}
}

// registryRun runs registry sub with fs, args.
func registryRun(ctx context.Context, cat *catalog.Catalog, sub string, fs *flag.FlagSet, args []string, stdout io.Writer) error {
	name := fs.String("name", defaultRegistry, "the registry's container name")
	if err := parse(fs, args); err != nil {
		return err
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	// Ctrl-C cancels the running docker or build command (its process group)
	// and lets the temporary tags of a push be removed.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch sub {
	case "start":
		repo, err := os.Getwd()
		if err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(repo, "images/registry/build.sh")); err != nil {
			return fmt.Errorf("registry start: run it from the suite's checkout: %w", err)
		}
		b := &images.Builder{Repo: repo, CacheDir: cache, Catalog: cat, Out: stdout}
		image, err := b.Registry(ctx)
		if err != nil {
			return err
		}
		l, err := registry.Start(ctx, *name, image, registry.DataDir(cache, *name), stdout)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "REGISTRY_MIRROR=%s\n", l.Mirror)
		return nil
	case "push":
		l, err := registry.Attach(ctx, *name)
		if err != nil {
			return err
		}
		for _, img := range fs.Args() {
			start := time.Now()
			if err := l.PushImage(ctx, img); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "registry %s: pushed %s in %.1fs\n", *name, img, time.Since(start).Seconds())
		}
		return nil
	case "nodes":
		l, err := registry.Attach(ctx, *name)
		if err != nil {
			return err
		}
		return registry.ConfigureNodes(ctx, fs.Args(), l.Mirror)
	case "containerd-patch":
		fmt.Fprintln(stdout, registry.ContainerdPatch)
		return nil
	case "stop":
		if err := registry.Stop(ctx, *name); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "registry %s: removed (data kept in %s)\n", *name, registry.DataDir(cache, *name))
		return nil
	}
	return &runner.BadInput{Err: fmt.Errorf("registry: unknown subcommand %q (valid: start, push, nodes, containerd-patch, stop)", sub)}
}
