package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/cluster"
	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// clusterDelete is cluster delete (make cluster-delete): the suite's kind
// cluster NAME, a parallel run's NAME-<n>, and their registries
// (NAME-registry, NAME-<n>-registry, as lifecycle.Run.RegistryName names
// them). It uses the kind binary the suite built into its cache and builds
// none: without one, the suite never made a cluster here.
func clusterDelete(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	name := fs.String("cluster", "gitops-conformance", "kind cluster name (and a parallel run's NAME-<n>)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &runner.BadInput{Err: fmt.Errorf("cluster delete: unexpected argument %q", fs.Arg(0))}
	}
	return deleteCluster(ctx, c, *name)
}

// deleteCluster deletes the kind cluster name, a parallel run's name-<n>
// and their registries (cluster delete; the self-tests' cleanup).
func deleteCluster(ctx context.Context, c cli, name string) error {
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	ours := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `(-[0-9]+)?$`)
	if kind := kindInCache(filepath.Join(cache, "bin"), c); kind == "" {
		fmt.Fprintln(c.stdout, "no kind binary in the suite's cache: the suite never made a cluster here")
	} else {
		out, err := shell.Output(ctx, kind, "get", "clusters")
		if err != nil {
			return fmt.Errorf("cluster delete: %w", err)
		}
		names := []string{name}
		for _, n := range strings.Fields(out) {
			if ours.MatchString(n) && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		for _, n := range names {
			if err := cluster.Delete(ctx, cluster.Spec{Name: n, Kind: kind}); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "deleted the cluster %s (if it was there)\n", n)
		}
	}
	out, err := shell.Output(ctx, "docker", "ps", "-a", "--format", "{{.Names}}")
	if err != nil {
		return nil // no Docker: no registry either
	}
	for _, n := range strings.Fields(out) {
		if base, ok := strings.CutSuffix(n, "-registry"); ok && ours.MatchString(base) {
			if err := registry.Stop(ctx, n); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "removed the registry %s\n", n)
		}
	}
	return nil
}

// kindInCache is the kind binary the suite built into dir: the catalog's
// version, else any other it built; "" if none.
func kindInCache(dir string, c cli) string {
	if c.cat != nil {
		if p := filepath.Join(dir, "kind-"+c.cat.Kind); exists(p) {
			return p
		}
	}
	found, _ := filepath.Glob(filepath.Join(dir, "kind-*"))
	for _, p := range found {
		if !strings.HasSuffix(p, ".tmp") {
			return p
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
