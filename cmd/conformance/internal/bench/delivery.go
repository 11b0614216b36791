package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/e2erun"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Delivery is how offline builds reach a node, per ArgoCD release per
// cluster, measured side by side in one run (conformance bench delivery,
// make bench-delivery):
//   - kind load: `kind load docker-image` of the release's images into a new
//     cluster, one release after another;
//   - the suite's registry (DELIVER=registry): a push of the same images
//     into an empty registry (once per release; every cluster then pulls),
//     then a pull by the node's containerd through hosts.toml (`ctr images
//     pull --hosts-dir /etc/containerd/certs.d`, pulled and unpacked as the
//     CRI does), into a new cluster, one release after another. Layers the
//     releases share are pushed and pulled once.
type Delivery struct {
	Repo     string
	CacheDir string
	Catalog  *catalog.Catalog
	ArgoCD   []string
	Prefix   string // <prefix>-load, <prefix>-pull, <prefix>-registry
	Reports  string
	Out      io.Writer
}

// Plan is what Run does, one line a step.
func (d Delivery) Plan() string {
	return fmt.Sprintf("1. argocd %[1]s images: images/argocd/build.sh (cached or built)\n"+
		"2. cluster %[2]s-load: kind load of each release's images, timed per release; the cluster deleted\n"+
		"3. registry %[2]s-registry, empty: a push of each release's images, timed per release\n"+
		"4. cluster %[2]s-pull (containerd hosts.toml): ctr images pull of each release's images through the registry, timed per release\n"+
		"5. the first release pushed again; the registry's size and the blobs it served; clusters and registry removed\n"+
		"6. the table to %[3]s/benchmarks/<time>-delivery.md\n", strings.Join(d.ArgoCD, ","), d.Prefix, d.Reports)
}

// DeliveryTimes are one release's measurements.
type DeliveryTimes struct {
	Release          string
	Load, Push, Pull time.Duration
}

// DeliveryTable is the measurements as Markdown: per release, in all, and
// what 1, 2 and 4 clusters cost each way.
func DeliveryTable(rows []DeliveryTimes) string {
	var b strings.Builder
	b.WriteString("| release | kind load (per cluster) | registry push (once) | registry pull (per cluster) |\n|---|---|---|---|\n")
	var load, push, pull float64
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f |\n", r.Release, r.Load.Seconds(), r.Push.Seconds(), r.Pull.Seconds())
		load, push, pull = load+r.Load.Seconds(), push+r.Push.Seconds(), pull+r.Pull.Seconds()
	}
	fmt.Fprintf(&b, "| all | %.1f | %.1f | %.1f |\n\n", load, push, pull)
	for _, n := range []float64{1, 2, 4} {
		fmt.Fprintf(&b, "- %.0f cluster(s): kind load %.0f s, registry %.0f s (push once + %.0f pulls)\n", n, load*n, push+pull*n, n)
	}
	return b.String()
}

// blobByCRI is a blob the registry served to containerd, in its access log.
var blobByCRI = regexp.MustCompile(`(?m)^[0-9a-f.:]+ - .*"GET /v2/.*/blobs/.*"containerd/`)

// Run runs the benchmark; its clusters and registry are removed at the end,
// also after a failure or a Ctrl-C.
func (d Delivery) Run(ctx context.Context) (err error) {
	log := Log{Name: "bench-delivery", Out: d.Out}
	start := time.Now()
	out, err := File(d.Reports, "delivery", start)
	if err != nil {
		return err
	}
	kind := filepath.Join(d.CacheDir, "bin", "kind-"+d.Catalog.Kind)
	node, err := NodeImage(ctx, d.Catalog.Kubernetes.Default)
	if err != nil || !exists(kind) {
		return fmt.Errorf("bench-delivery: no kind binary or node image in the cache yet: run make test (or make smoke) once first")
	}
	loadCluster, pullCluster, reg := d.Prefix+"-load", d.Prefix+"-pull", d.Prefix+"-registry"
	ctx, in := e2erun.Watch(ctx) // a Ctrl-C ends the step under way
	defer in.Stop()
	cleanup := func() {
		c := context.WithoutCancel(ctx)
		_, _ = shell.Output(c, kind, "delete", "cluster", "--name", loadCluster)
		_, _ = shell.Output(c, kind, "delete", "cluster", "--name", pullCluster)
		_ = registry.Stop(c, reg)
	}
	defer func() {
		cleanup()
		if in.Interrupted() {
			err = ErrInterrupted
		}
	}()

	builder := &images.Builder{Repo: d.Repo, CacheDir: d.CacheDir, Catalog: d.Catalog, Out: io.Discard}
	imgs := map[string][]string{}
	for _, tag := range d.ArgoCD {
		log.Printf("argocd %s images (images/argocd/build.sh: cached or built)", tag)
		if imgs[tag], err = builder.Component(ctx, "argocd", tag); err != nil {
			return err
		}
	}
	config, err := os.CreateTemp("", "bench-delivery-kind.")
	if err != nil {
		return err
	}
	defer os.Remove(config.Name())
	base, err := os.ReadFile(filepath.Join(d.Repo, "kind-config.yaml"))
	if err != nil {
		return err
	}
	patch := "containerdConfigPatches:\n  - |-\n    " + strings.ReplaceAll(strings.TrimRight(registry.ContainerdPatch, "\n"), "\n", "\n    ") + "\n"
	if _, err := config.WriteString(string(base) + patch); err != nil {
		return err
	}
	config.Close()

	rows := make([]DeliveryTimes, len(d.ArgoCD))
	cleanup()
	log.Printf("cluster %s (kind load)", loadCluster)
	if _, err := shell.Output(ctx, kind, "create", "cluster", "--name", loadCluster, "--image", node, "--config", filepath.Join(d.Repo, "kind-config.yaml")); err != nil {
		return err
	}
	for i, tag := range d.ArgoCD {
		rows[i].Release = tag
		t := time.Now()
		if _, err := shell.Output(ctx, kind, append(append([]string{"load", "docker-image"}, imgs[tag]...), "--name", loadCluster)...); err != nil {
			return err
		}
		rows[i].Load = time.Since(t)
		log.Printf("argocd %s: kind load %.1f s", tag, rows[i].Load.Seconds())
	}
	if _, err := shell.Output(ctx, kind, "delete", "cluster", "--name", loadCluster); err != nil {
		return err
	}

	// the registry: an empty one, a push per release, then a new cluster pulling
	data := registry.DataDir(d.CacheDir, reg)
	if err := os.RemoveAll(data); err != nil {
		return err
	}
	defer os.RemoveAll(data)
	image, err := (&images.Builder{Repo: d.Repo, CacheDir: d.CacheDir, Catalog: d.Catalog, Out: d.Out}).Registry(ctx)
	if err != nil {
		return err
	}
	local, err := registry.Start(ctx, reg, image, data, io.Discard)
	if err != nil {
		return err
	}
	for i, tag := range d.ArgoCD {
		t := time.Now()
		for _, img := range imgs[tag] {
			if err := local.PushImage(ctx, img); err != nil {
				return err
			}
		}
		rows[i].Push = time.Since(t)
		log.Printf("argocd %s: push %.1f s", tag, rows[i].Push.Seconds())
	}
	log.Printf("cluster %s (pulls through %s)", pullCluster, local.Mirror)
	if _, err := shell.Output(ctx, kind, "create", "cluster", "--name", pullCluster, "--image", node, "--config", config.Name()); err != nil {
		return err
	}
	if err := registry.ConfigureNodes(ctx, []string{pullCluster + "-control-plane"}, local.Mirror); err != nil {
		return err
	}
	for i, tag := range d.ArgoCD {
		t := time.Now()
		for _, img := range imgs[tag] {
			ref, err := registry.ParseRef(img)
			if err != nil {
				return err
			}
			full := ref.Host + "/" + ref.Path + ":" + ref.Tag // as containerd pulls it: redis:7 is docker.io/library/redis:7
			if ref.Digest != "" {
				full = ref.Host + "/" + ref.Path + "@" + ref.Digest
			}
			if _, err := shell.Output(ctx, "docker", "exec", pullCluster+"-control-plane", "ctr", "-n", "k8s.io", "images", "pull",
				"--hosts-dir", "/etc/containerd/certs.d", full); err != nil {
				return err
			}
		}
		rows[i].Pull = time.Since(t)
		log.Printf("argocd %s: pull %.1f s", tag, rows[i].Pull.Seconds())
	}
	first := d.ArgoCD[0]
	t := time.Now()
	for _, img := range imgs[first] {
		if err := local.PushImage(ctx, img); err != nil {
			return err
		}
	}
	repush := time.Since(t)
	served, _ := local.Logs(ctx)
	stored := dirBytes(data) >> 20

	text := "# Delivery of ArgoCD images to a node: kind load vs the suite's registry\n\n" +
		fmt.Sprintf("%s, node image %s; releases in this order: %s.\n", Machine(start), node, strings.Join(d.ArgoCD, ", ")) +
		"Each release's images: argocd and redis (images/argocd/build.sh). Seconds, wall clock, one run.\n\n" +
		DeliveryTable(rows) +
		fmt.Sprintf("- pushing %s again into the registry that holds it: %.1f s\n", first, repush.Seconds()) +
		fmt.Sprintf("- the registry stored %d MB for all releases; it served %d blob GETs to containerd\n", stored, len(blobByCRI.FindAllString(served, -1)))
	fmt.Fprint(d.Out, text)
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		return err
	}
	log.Printf("written to %s", out)
	return nil
}

// dirBytes is the size of the files under dir (symbolic links not followed).
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
