package images

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// CacheLabel is the image label holding a build's cache key.
const CacheLabel = "gitops-conformance.cache-key"

// Builder builds and caches images.
type Builder struct {
	Repo          string // the suite's checkout
	CacheDir      string
	NoSysResource bool
	Catalog       *catalog.Catalog
	Out           io.Writer // progress
	// Spent, when set, is told the time of each build or cache check of
	// the node image and of a recipe, its wait for another run's included:
	// the run's build phase.
	Spent func(time.Duration)
	// Space, when set, is asked before each build or cache check that goes
	// through b.lock (node image, registry image, a component's recipe), under
	// its lock: an error (a disk under the minimum, host.DiskSpace) ends that
	// step with its one line before anything is written. Pushes into the
	// suite's registry (images.Locked in lifecycle) are not asked.
	Space func() error
	// Env is added to every recipe's environment (the node image's, the
	// registry's, ArgoCD's and each component's): a benchmark's empty Go
	// caches (GOCACHE, GOMODCACHE).
	Env []string
}

// Key hashes recipe files (directories are walked) and versions into a cache key.
func Key(repo string, recipe []string, versions map[string]string) (string, error) {
	h := sha256.New()
	names := make([]string, 0, len(versions))
	for k := range versions {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(h, "%s=%s\n", k, versions[k])
	}
	for _, r := range recipe {
		err := filepath.WalkDir(filepath.Join(repo, r), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(repo, path)
			fmt.Fprintf(h, "%s %d\n", filepath.ToSlash(rel), len(data))
			h.Write(data)
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("hash recipe %q: %w", r, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// NodeRecipe is the node image's name in the build ledger.
const NodeRecipe = "node"

// nodeRecipe lists the files a node image is built from (images/build: the
// build module generator and the Kubernetes build script).
var nodeRecipe = []string{"images/node", "images/rootfs.sh", "images/build", "cmd/pause", "cmd/runc-nosysresource"}

// NodeImage returns the offline node image of Kubernetes k, building it
// when no image with the same cache key exists.
func (b *Builder) NodeImage(ctx context.Context, k catalog.KubeVersion) (string, error) {
	image, key, err := b.nodeImageName(k)
	if err != nil {
		return "", err
	}
	defer b.spent(time.Now())
	return image, b.lock(ctx, image, func() error { return b.nodeImage(ctx, k, image, key) })
}

// nodeImageName is the offline node image of Kubernetes k and its cache key.
func (b *Builder) nodeImageName(k catalog.KubeVersion) (image, key string, err error) {
	versions := map[string]string{"kubernetes": k.Version, "etcd": k.Etcd, "coredns": k.CoreDNS,
		"kind": b.Catalog.Kind, "nosysresource": fmt.Sprint(b.NoSysResource)}
	if key, err = Key(b.Repo, nodeRecipe, versions); err != nil {
		return "", "", err
	}
	return fmt.Sprintf("gitops-conformance/node:%s-%s", k.Version, key[:12]), key, nil
}

func (b *Builder) nodeImage(ctx context.Context, k catalog.KubeVersion, image, key string) error {
	if b.Cached(ctx, image, key) {
		fmt.Fprintf(b.Out, "node image %s: cached\n", image)
		return nil
	}
	if err := StagingComplete(ctx, b.Repo, k.Version); err != nil {
		return err
	}
	fmt.Fprintf(b.Out, "node image %s: building (Kubernetes %s from source; ~15 min cold on 2 cores)\n", image, k.Version)
	start := time.Now()
	_, err := shell.Run(ctx, shell.Cmd{
		Name: filepath.Join(b.Repo, "images/node/build.sh"), Args: []string{image},
		Env: append([]string{"KUBE_VERSION=" + k.Version, "ETCD_VERSION=" + k.Etcd, "COREDNS_VERSION=" + k.CoreDNS,
			"KIND_VERSION=" + b.Catalog.Kind, "CACHE_DIR=" + b.CacheDir, "CACHE_KEY=" + key,
			"NOSYSRESOURCE=" + fmt.Sprint(b.NoSysResource)}, b.Env...),
		Progress: b.Out,
	})
	if err != nil {
		return fmt.Errorf("build node image %q: %w", image, err)
	}
	fmt.Fprintf(b.Out, "node image %s: built in %s\n", image, time.Since(start).Round(time.Second))
	b.record(NodeRecipe, k.Version, []string{image}, nil, time.Since(start))
	return nil
}

// StagingComplete asks the module proxy, through
// images/node/staging-check.sh, whether every staging module Kubernetes
// version's go.mod replaces is served at the matching v0.x.y: the node
// image builds from the module only then (its zip leaves staging/ out). The
// error is the script's one line naming the modules missing.
func StagingComplete(ctx context.Context, repo, version string) error {
	script := filepath.Join(repo, "images/node/staging-check.sh")
	if _, err := os.Stat(script); err != nil {
		return nil // the recipe predates the check: its build says what fails
	}
	out, err := shell.Output(ctx, script, version)
	if err == nil {
		return nil
	}
	if line := shell.LastLine(out); line != "" {
		return errors.New(line)
	}
	return fmt.Errorf("kubernetes %s: staging check: %w", version, err)
}

// registryRecipe lists the files the local registry image is built from.
var registryRecipe = []string{"images/registry", "images/lib.sh"}

// Registry returns the suite's local registry image (distribution/distribution
// from the Go module proxy, images/registry/build.sh), building it when no
// image with the same cache key exists: about 2 minutes cold, seconds warm.
func (b *Builder) Registry(ctx context.Context) (string, error) {
	key, err := Key(b.Repo, registryRecipe, nil)
	if err != nil {
		return "", err
	}
	image := "gitops-conformance/registry:" + key[:12]
	return image, b.lock(ctx, image, func() error {
		if b.Cached(ctx, image, key) {
			return nil
		}
		fmt.Fprintf(b.Out, "registry image %s: building (distribution/distribution from the Go module proxy)\n", image)
		start := time.Now()
		if _, err := shell.Run(ctx, shell.Cmd{Name: filepath.Join(b.Repo, "images/registry/build.sh"), Args: []string{image},
			Env: append([]string{"CACHE_DIR=" + b.CacheDir, "CACHE_KEY=" + key}, b.Env...), Progress: b.Out}); err != nil {
			return fmt.Errorf("build registry image %q: %w", image, err)
		}
		fmt.Fprintf(b.Out, "registry image %s: built in %s\n", image, time.Since(start).Round(time.Second))
		return nil
	})
}

// ArgoCD builds (or finds cached) the offline images of an ArgoCD release and
// returns their names, as install.yaml references them: from its module zip,
// or, when tree is set, from that source tree of the tag (commit, when known,
// is the tree's: the version the binary reports carries it).
func (b *Builder) ArgoCD(ctx context.Context, rel catalog.Release, tree, commit string) ([]string, error) {
	start := time.Now()
	var args, env []string
	if tree != "" {
		args = []string{tree}
	}
	if commit != "" {
		env = []string{"GIT_COMMIT=" + commit}
	}
	imgs, err := b.ComponentWith(ctx, env, "argocd", rel.String(), args...)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(b.Out, "argocd %s images ready in %s: %s\n", rel, time.Since(start).Round(time.Second), strings.Join(imgs, " "))
	return imgs, nil
}

// refusedModule is how go says the module proxy would not serve a module.
var refusedModule = regexp.MustCompile(`([\w.~/-]+@v[\w.+-]+): reading \S+: (403 Forbidden|404 Not Found|410 Gone)`)

// Cause says in one line why a recipe failed: the module the proxy would not
// serve where that was it (ArgoCD v3.0.0 needs a module it refuses), else the
// error's last line (the recipe names its logs there).
func Cause(err error) string {
	if m := refusedModule.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Sprintf("its build needs %s, which the module proxy will not serve (%s)", m[1], m[2])
	}
	return shell.LastLine(err.Error())
}

// Component builds (or finds cached) the offline images of a component's
// release with its recipe, images/<component>/build.sh VERSION [ARGS...], and
// returns the images the recipe names. The recipe keeps its own cache; a lock
// makes runs side by side wait for one build instead of racing.
func (b *Builder) Component(ctx context.Context, component, version string, args ...string) ([]string, error) {
	return b.ComponentWith(ctx, nil, component, version, args...)
}

// ComponentWith is Component with variables added to the recipe's environment.
func (b *Builder) ComponentWith(ctx context.Context, env []string, component, version string, args ...string) ([]string, error) {
	defer b.spent(time.Now())
	var imgs []string
	err := b.lock(ctx, component+"-"+version, func() error {
		start := time.Now()
		out, err := shell.Run(ctx, shell.Cmd{
			Name: filepath.Join(b.Repo, "images", component, "build.sh"), Args: append([]string{version}, args...),
			Env: slices.Concat([]string{"CACHE_DIR=" + b.CacheDir}, b.Env, env), Progress: b.Out,
		})
		if err != nil {
			return fmt.Errorf("build %s %s images: %w", component, version, err)
		}
		if imgs = MarkedList(out, "IMAGES:"); len(imgs) == 0 {
			return fmt.Errorf("build %s %s images: the recipe named no images", component, version)
		}
		b.record(component, version, imgs, Prefixed(out, "SOURCE: "), time.Since(start))
		return nil
	})
	return imgs, err
}

func (b *Builder) spent(start time.Time) {
	if b.Spent != nil {
		b.Spent(time.Since(start))
	}
}

// Cached reports whether image exists with the given cache key.
func (b *Builder) Cached(ctx context.Context, image, key string) bool {
	out, err := shell.Output(ctx, "docker", "image", "inspect", "--format", "{{index .Config.Labels \""+CacheLabel+"\"}}", image)
	return err == nil && strings.TrimSpace(out) == key
}

// Prefixed returns what follows prefix on the lines that start with it.
func Prefixed(out, prefix string) []string {
	var list []string
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok && strings.TrimSpace(v) != "" {
			list = append(list, strings.TrimSpace(v))
		}
	}
	return list
}

// MarkedList returns the non-empty lines after a marker line.
func MarkedList(out, marker string) []string {
	_, after, ok := strings.Cut(out, marker+"\n")
	if !ok {
		return nil
	}
	var list []string
	for _, l := range strings.Split(after, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			list = append(list, l)
		}
	}
	return list
}
