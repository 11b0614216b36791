package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/e2erun"
	"github.com/gitops-conformance/suite/internal/host"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// Builds is the cold build benchmark (conformance bench builds, make
// bench-builds): each component release's images built as on a new machine,
// one after the other, where pkg/runner/coldcost.yaml's figures come from.
// Before each build its images and the base images its recipe names
// (gitops-conformance/<name>-base) are removed; the recipe then runs as the
// prebuild runs it (lifecycle.Run.BuildComponent: Kargo from its source
// tree) with an empty Go build cache, an empty Go module cache and an empty
// cache directory of its own. What a new machine has before its component
// builds is the exception: the Go toolchain's download is copied in, and the
// node image's Kubernetes binaries are linked in (kyverno's hook image
// carries its kubectl).
// The images built are the ones the suite uses (the same cache keys); a
// build interrupted or failed leaves them removed, for the next run that
// needs them to build.
type Builds struct {
	Repo     string
	CacheDir string // the suite's cache: its ledger names the images to remove
	Catalog  *catalog.Catalog
	Builds   []lifecycle.ComponentBuild
	Reports  string
	Out      io.Writer
}

// Plan is what Run does, one line a step.
func (b Builds) Plan() string {
	var s strings.Builder
	fmt.Fprintf(&s, "0. the CPU probe (as make bench-probe takes it): the machine the figures are of\n")
	for i, cb := range b.Builds {
		fmt.Fprintf(&s, "%d. %s %s: its images and its recipe's base images removed, then images/%s/build.sh with empty Go caches and cache directory, timed\n",
			i+1, cb.Component, cb.Version, cb.Recipe)
	}
	fmt.Fprintf(&s, "%d. the table to %s/benchmarks/<time>-builds.md\n", len(b.Builds)+1, b.Reports)
	return s.String()
}

// Run runs the benchmark. A build that fails is a row saying so; the others
// go on, and Run then returns an error.
func (b Builds) Run(ctx context.Context) error {
	start := time.Now()
	out, err := File(b.Reports, "builds", start)
	if err != nil {
		return err
	}
	ctx, in := e2erun.Watch(ctx)
	defer in.Stop()
	log := Log{Name: "bench-builds", Out: b.Out}
	probe := fmt.Sprintf("%.3f s (the median of three rounds, load average %s)", host.Probe().Seconds(), host.LoadAverages())
	log.Printf("probe %s", probe)
	modcache, err := goModCache(ctx)
	if err != nil {
		return err
	}
	toolchain := filepath.Join(modcache, "cache", "download", "golang.org", "toolchain")
	t := &Timings{Out: b.Out}
	var failed []string
	for _, cb := range b.Builds {
		what := fmt.Sprintf("%s %s images, cold", cb.Component, cb.Version)
		took, disk, err := b.build(ctx, log, toolchain, cb)
		if in.Interrupted() {
			return ErrInterrupted
		}
		if err != nil {
			log.Printf("%s: %s", what, images.Cause(err))
			t.Note(what, "failed after "+took.Round(time.Second).String()+": "+images.Cause(err))
			failed = append(failed, cb.Component+" "+cb.Version)
			continue
		}
		t.Record(what, took)
		t.Note(fmt.Sprintf("%s %s: disk after it", cb.Component, cb.Version), disk)
	}
	text := fmt.Sprintf("# Cold builds %s\n\nThe CPU probe before the builds: %s. Each build alone: its images and its recipe's base images removed first, "+
		"empty Go build and module caches (the Go toolchain's download copied in), an empty cache directory (the node image's Kubernetes binaries linked in); the load after each is in the log.\n\n%s",
		Machine(start), probe, t.Table())
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(b.Out, "written to %s\n", out)
	if len(failed) > 0 {
		return fmt.Errorf("bench-builds: %d of %d builds failed: %s", len(failed), len(b.Builds), strings.Join(failed, ", "))
	}
	return nil
}

// build is one cold build, timed: from the recipe's start to its images;
// disk is what it left: Go's caches and the recipe's cache directory, and
// its images as Docker sizes them (each with its base's layers).
func (b Builds) build(ctx context.Context, log Log, toolchain string, cb lifecycle.ComponentBuild) (took time.Duration, disk string, err error) {
	removed, err := b.removeImages(ctx, cb)
	if err != nil {
		return 0, "", err
	}
	log.Printf("%s %s: removed %s", cb.Component, cb.Version, strings.Join(removed, " "))
	tmp, err := os.MkdirTemp("", "bench-builds.")
	if err != nil {
		return 0, "", err
	}
	defer removeAll(tmp)
	cache, gocache, modcache := filepath.Join(tmp, "cache"), filepath.Join(tmp, "gocache"), filepath.Join(tmp, "gomodcache")
	if _, err := os.Stat(toolchain); err == nil {
		into := filepath.Join(modcache, "cache", "download", "golang.org")
		if err := os.MkdirAll(into, 0o755); err != nil {
			return 0, "", err
		}
		if _, err := shell.Output(ctx, "cp", "-R", toolchain, into+"/"); err != nil {
			return 0, "", fmt.Errorf("copy the Go toolchain's download: %w", err)
		}
	}
	// the node image's Kubernetes binaries, which a new machine builds first
	// (kyverno's hook image carries its kubectl)
	if err := os.MkdirAll(filepath.Join(cache, "bin"), 0o755); err != nil {
		return 0, "", err
	}
	kube, _ := filepath.Glob(filepath.Join(b.CacheDir, "bin", "kubernetes-*"))
	for _, dir := range kube {
		if err := os.Symlink(dir, filepath.Join(cache, "bin", filepath.Base(dir))); err != nil {
			return 0, "", err
		}
	}
	seeded := dirBytes(tmp)
	builder := &images.Builder{Repo: b.Repo, CacheDir: cache, Catalog: b.Catalog, Out: b.Out, Env: []string{"GOCACHE=" + gocache, "GOMODCACHE=" + modcache}}
	r := &lifecycle.Run{Catalog: b.Catalog, Repo: b.Repo, CacheDir: cache}
	log.Printf("%s %s: building (images/%s/build.sh), load average %s", cb.Component, cb.Version, cb.Recipe, host.LoadAverages())
	s := time.Now()
	err = r.BuildComponent(ctx, builder, cb)
	took = time.Since(s)
	log.Printf("%s %s: %s after %s, load average %s", cb.Component, cb.Version, map[bool]string{true: "done", false: "failed"}[err == nil],
		took.Round(time.Second), host.LoadAverages())
	if err != nil { // its logs outlive the caches, for a look
		if kept, kerr := keepLogs(filepath.Join(cache, "logs")); kerr == nil {
			err = fmt.Errorf("%w (its build logs kept in %s)", err, kept)
		}
		return took, "", err
	}
	disk = fmt.Sprintf("%.1f GiB in Go's caches and its cache directory", float64(dirBytes(tmp)-seeded)/(1<<30))
	if built, ok := images.LedgerEntry(cache, cb.Recipe, cb.Version); ok {
		var sizes []string
		for _, img := range built.Images {
			if out, err := shell.Output(ctx, "docker", "image", "inspect", "-f", "{{.Size}}", img); err == nil {
				var n float64
				if _, err := fmt.Sscan(strings.TrimSpace(out), &n); err == nil {
					sizes = append(sizes, fmt.Sprintf("%s %.0f MB", img, n/1e6))
				}
			}
		}
		disk += "; images " + strings.Join(sizes, ", ")
	}
	log.Printf("%s %s: %s", cb.Component, cb.Version, disk)
	return took, disk, nil
}

// keepLogs copies a failed build's log directory out of its caches, which go.
func keepLogs(logs string) (string, error) {
	kept, err := os.MkdirTemp("", "bench-builds-logs.")
	if err != nil {
		return "", err
	}
	if _, err := shell.Output(context.Background(), "cp", "-R", logs+"/.", kept); err != nil {
		os.RemoveAll(kept)
		return "", err
	}
	return kept, nil
}

// baseImage is how a recipe names its base images.
var baseImage = regexp.MustCompile(`gitops-conformance/[a-z0-9-]+-base`)

// removeImages removes the images the ledger says cb's build gave and every
// image of the base repositories its recipe names; it returns what it
// removed.
func (b Builds) removeImages(ctx context.Context, cb lifecycle.ComponentBuild) ([]string, error) {
	recipe, err := os.ReadFile(filepath.Join(b.Repo, "images", cb.Recipe, "build.sh"))
	if err != nil {
		return nil, err
	}
	var names []string
	if built, ok := images.LedgerEntry(b.CacheDir, cb.Recipe, cb.Version); ok {
		names = append(names, built.Images...)
	}
	bases := baseImage.FindAllString(string(recipe), -1)
	slices.Sort(bases)
	for _, repo := range slices.Compact(bases) {
		list, err := shell.Output(ctx, "docker", "images", "--format", "{{.Repository}}:{{.Tag}}", repo)
		if err != nil {
			return nil, fmt.Errorf("docker images %s: %w", repo, err)
		}
		names = append(names, strings.Fields(list)...)
	}
	var removed []string
	for _, name := range names {
		if _, err := shell.Output(ctx, "docker", "image", "inspect", name); err != nil {
			continue // not here: nothing to remove
		}
		if _, err := shell.Output(ctx, "docker", "rmi", name); err != nil {
			return nil, fmt.Errorf("remove %s before its cold build: %w", name, err)
		}
		removed = append(removed, name)
	}
	if len(removed) == 0 {
		removed = []string{"nothing (none of its images here)"}
	}
	return removed, nil
}

// goModCache is the machine's Go module cache (go env GOMODCACHE).
func goModCache(ctx context.Context) (string, error) {
	out, err := shell.Output(ctx, "go", "env", "GOMODCACHE")
	if err != nil {
		return "", fmt.Errorf("go env GOMODCACHE: %w", err)
	}
	return strings.TrimSpace(out), nil
}

// removeAll removes dir, the read-only directories of a Go module cache
// included.
func removeAll(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o755)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "bench-builds: %s left behind: %v\n", dir, err)
	}
}
