package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// reproCommand runs cells' bundles: repro.sh, as a maintainer would, with
// what an offline machine needs instead of registries and downloads.
func reproCommand(ctx context.Context, cat *catalog.Catalog, args []string, stdout io.Writer) error {
	return execute(ctx, cli{cat: cat, stdout: stdout}, append([]string{"repro"}, args...))
}

// reproRun is repro run.
func reproRun(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	cat, stdout := c.cat, c.stdout
	cluster := fs.String("cluster", "", "kind cluster to create for each bundle (default: the bundle's own name)")
	command := fs.String("command", "", "how the run was asked for, for the README")
	if err := parse(fs, args); err != nil {
		return err
	}
	var dirs []string
	for _, d := range fs.Args() {
		// a run's directory may be named by its latest link (reports/latest)
		if real, err := filepath.EvalSymlinks(d); err == nil {
			d = real
		}
		found, err := bundles(d)
		if err != nil {
			return err
		}
		dirs = append(dirs, found...)
	}
	if len(dirs) == 0 {
		return &runner.BadInput{Err: fmt.Errorf("repro run: no bundle (%s/) under %v", repro.BundleDir, fs.Args())}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	wd, _ := os.Getwd()
	failed := 0
	for _, dir := range dirs {
		c, _, _, err := repro.Read(dir)
		if err != nil {
			return err
		}
		if c.Outcome == "ERROR" || c.Outcome == "SKIPPED" {
			failed++
			fmt.Fprintf(stdout, "repro %s: not run: the cell ended %s (%s); its bundle has no verdict to reach\n", c.ID, c.Outcome, c.Reason)
			continue
		}
		var env []string
		var manifests string
		if *cluster != "" {
			env = append(env, "CLUSTER="+*cluster)
		}
		if c.Offline {
			// what the suite has instead of registries and downloads: its builds
			// under the upstream names, its node image, kind and install.yaml
			manifests, err = offlineManifests(ctx, cat, wd, cache, dir, c.ArgoCD)
			if err != nil {
				return err
			}
			env = append(env, "REPRO_LOAD_IMAGES=1", "KIND="+filepath.Join(cache, "bin", "kind-"+cat.Kind),
				"KIND_NODE_IMAGE="+c.SuiteNodeImage, "REPRO_KIND_CONFIG="+filepath.Join(wd, "kind-config.yaml"),
				"REPRO_INSTALL_YAML="+filepath.Join(manifests, "install-{tag}.yaml"))
		}
		fmt.Fprintf(stdout, "repro %s: running %s/repro.sh\n", c.ID, dir+"/"+repro.BundleDir)
		v, err := repro.Verify(ctx, dir, *command, env, stdout)
		if manifests != "" {
			os.RemoveAll(manifests)
		}
		if err != nil {
			return err
		}
		bundle := filepath.Join(dir, repro.BundleDir)
		if v.Reached {
			fmt.Fprintf(stdout, "repro %s: bundle %s reached the cell's verdict %s in %.0fs (%s, %s)\n", c.ID, bundle, v.Outcome, v.Seconds, filepath.Join(dir, repro.Archive), filepath.Join(dir, repro.RunLog))
			continue
		}
		failed++
		fmt.Fprintf(stdout, "repro %s: bundle %s did NOT reach the cell's verdict %s: it ended %s (%s)\n", c.ID, bundle, c.Outcome, v.Outcome, filepath.Join(dir, repro.RunLog))
	}
	if failed > 0 {
		return fmt.Errorf("repro: %d of %d bundle(s) did not reach their cell's verdict", failed, len(dirs))
	}
	return nil
}

// bundles are the cell evidence directories holding a bundle under root.
func bundles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == repro.BundleDir {
			if _, err := os.Stat(filepath.Join(p, "bundle.json")); err == nil {
				out = append(out, filepath.Dir(p))
			}
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("repro run: %w", err)
	}
	return out, nil
}

// installCall is a release repro.sh installs or upgrades to by name.
var installCall = regexp.MustCompile(`(?m)^install_argocd (v[0-9][0-9A-Za-z.+-]*)\s*$`)

// offlineManifests is a directory holding install-<tag>.yaml for each ArgoCD
// release a bundle installs (the cell's, and those its script upgrades to):
// the suite's offline install.yaml of each, as a cell applies it, whose name
// depends on where the release was built from (a source tree's has its own).
func offlineManifests(ctx context.Context, cat *catalog.Catalog, repo, cache, dir, cell string) (_ string, err error) {
	tags := []string{cell}
	if script, err := os.ReadFile(filepath.Join(dir, repro.BundleDir, "repro.sh")); err == nil {
		for _, m := range installCall.FindAllStringSubmatch(string(script), -1) {
			tags = append(tags, m[1])
		}
	}
	out, err := os.MkdirTemp("", "repro-manifests-")
	if err != nil {
		return "", err
	}
	defer func() { // the directory goes with a failure
		if err != nil {
			os.RemoveAll(out)
		}
	}()
	inst := &argocd.Installer{Repo: repo, CacheDir: cache, Mode: images.Offline, Catalog: cat, Out: io.Discard}
	for _, tag := range tags {
		rel, err := cat.Release(tag)
		if err != nil {
			return "", fmt.Errorf("repro run: the bundle installs ArgoCD %s: %w", tag, err)
		}
		path, err := inst.Manifest(ctx, rel)
		if err != nil {
			return "", fmt.Errorf("repro run: ArgoCD %s's install.yaml: %w", tag, err)
		}
		if err := os.Symlink(path, filepath.Join(out, "install-"+tag+".yaml")); err != nil && !os.IsExist(err) {
			return "", err
		}
	}
	return out, nil
}
