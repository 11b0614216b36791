package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/e2erun"
	"github.com/gitops-conformance/suite/internal/host"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Infra is the infrastructure benchmark (conformance bench infra, make
// bench-infra): the node image assembled with its binaries cached, a
// cluster created from the cached node image to node Ready, per ArgoCD
// release its images (cache hit or build), their kind load and the install
// to every workload rolled out, and cluster reuse: the same cells with a
// fresh cluster per cell against one reused cluster. Cold build figures
// (compiling Kubernetes, ArgoCD) are printed by the builds themselves on a
// cold cache; Cold removes the cached binaries first.
type Infra struct {
	E2E, Repo  string
	CacheDir   string
	Catalog    *catalog.Catalog
	Kubernetes catalog.KubeVersion // the node image assembled, and the reuse runs'
	ArgoCD     []string
	Cells      []string // kubeovn-argocd variants of the reuse comparison
	Cluster    string
	Cold       bool
	Reports    string
	Out        io.Writer
}

// Plan is what Run does, one line a step.
func (b Infra) Plan() string {
	cold := ""
	if b.Cold {
		cold = "0. the cached Kubernetes, etcd and CoreDNS binaries removed (cold)\n"
	}
	return cold + fmt.Sprintf("1. node image assembly (images/node/build.sh, Kubernetes %[1]s, binaries cached), timed; the image removed\n"+
		"2. cluster %[2]s from the suite's node image to node Ready, timed\n"+
		"3. per ArgoCD release (%[3]s): its images (cache hit or build), their kind load, the install to every workload rolled out, each timed\n"+
		"4. kubeovn-argocd %[4]s on ArgoCD %[5]s: a run per variant (a fresh cluster each), then one run of all (one cluster), timed\n"+
		"5. the table to %[6]s/benchmarks/<time>.md; cluster %[2]s deleted\n",
		b.Kubernetes.Version, b.Cluster, strings.Join(b.ArgoCD, ","), strings.Join(b.Cells, ","), b.ArgoCD[0], b.Reports)
}

// Run runs the benchmark; the cluster is deleted at the end, also after a
// failure or a Ctrl-C.
func (b Infra) Run(ctx context.Context) (err error) {
	start := time.Now()
	out, err := File(b.Reports, "", start)
	if err != nil {
		return err
	}
	kind := filepath.Join(b.CacheDir, "bin", "kind-"+b.Catalog.Kind)
	kubectl := filepath.Join(b.CacheDir, "bin", "kubernetes-"+b.Catalog.Kubernetes.Default, "kubectl")
	node, err := NodeImage(ctx, b.Kubernetes.Version)
	if err != nil {
		return err
	}
	if !exists(kind) || !exists(kubectl) {
		return fmt.Errorf("bench-infra: no %s or %s yet: run make test (or make e2e) once first", kind, kubectl)
	}
	// a Ctrl-C ends what runs now (a build, kind, kubectl) or the run
	ctx, in := e2erun.Watch(ctx)
	defer in.Stop()
	interrupted := in.Interrupted
	deleteCluster := func() {
		_, _ = shell.Output(context.WithoutCancel(ctx), kind, "delete", "cluster", "--name", b.Cluster)
	}
	defer func() {
		deleteCluster()
		if interrupted() {
			err = ErrInterrupted
		}
	}()
	t := &Timings{Out: b.Out}
	if b.Cold {
		for _, pattern := range []string{"kubernetes-*", "etcd-*", "coredns-*"} {
			found, _ := filepath.Glob(filepath.Join(b.CacheDir, "bin", pattern))
			for _, p := range found {
				if err := os.RemoveAll(p); err != nil {
					return err
				}
			}
		}
	}

	noSysResource := !host.HasCapSysResource(host.Gather(ctx, b.CacheDir).CapBnd)
	s := time.Now()
	if _, err := shell.Run(ctx, shell.Cmd{Name: filepath.Join(b.Repo, "images/node/build.sh"), Args: []string{"gitops-conformance/node:bench"},
		Env: []string{"KUBE_VERSION=" + b.Kubernetes.Version, "ETCD_VERSION=" + b.Kubernetes.Etcd, "COREDNS_VERSION=" + b.Kubernetes.CoreDNS,
			"KIND_VERSION=" + b.Catalog.Kind, "CACHE_DIR=" + b.CacheDir, "CACHE_KEY=bench", fmt.Sprintf("NOSYSRESOURCE=%t", noSysResource)}}); err != nil {
		return err
	}
	t.Record("node image assembly (binaries cached)", time.Since(s))
	if _, err := shell.Output(ctx, "docker", "rmi", "gitops-conformance/node:bench"); err != nil {
		return err
	}

	deleteCluster()
	s = time.Now()
	if _, err := shell.Output(ctx, kind, "create", "cluster", "--name", b.Cluster, "--image", node, "--config", filepath.Join(b.Repo, "kind-config.yaml")); err != nil {
		return err
	}
	kc := []string{"--context", "kind-" + b.Cluster}
	if _, err := shell.Output(ctx, kubectl, append(kc, "wait", "--for=condition=Ready", "node", "--all", "--timeout=180s")...); err != nil {
		return err
	}
	t.Record("cluster create, warm node image, to node Ready", time.Since(s))

	builder := &images.Builder{Repo: b.Repo, CacheDir: b.CacheDir, Catalog: b.Catalog, Out: io.Discard}
	for _, tag := range b.ArgoCD {
		s = time.Now()
		imgs, err := builder.Component(ctx, "argocd", tag)
		if err != nil {
			return err
		}
		t.Record("argocd "+tag+" images (cache hit or build)", time.Since(s))
		manifest := filepath.Join(os.TempDir(), "bench-infra-"+tag+".yaml")
		if _, err := shell.Run(ctx, shell.Cmd{Name: filepath.Join(b.Repo, "images/argocd/install-yaml.sh"), Args: []string{tag, manifest},
			Env: []string{"CACHE_DIR=" + b.CacheDir}}); err != nil {
			return err
		}
		s = time.Now()
		for _, img := range imgs {
			if _, err := shell.Output(ctx, kind, "load", "docker-image", "--name", b.Cluster, img); err != nil {
				return err
			}
		}
		t.Record("argocd "+tag+" kind load", time.Since(s))
		s = time.Now()
		_, _ = shell.Output(ctx, kubectl, append(kc, "create", "namespace", "argocd")...)
		if _, err := shell.Output(ctx, kubectl, append(kc, "apply", "--server-side", "--force-conflicts", "-n", "argocd", "-f", manifest)...); err != nil {
			return err
		}
		workloads, err := shell.Output(ctx, kubectl, append(kc, "-n", "argocd", "get", "deploy,statefulset", "-o", "name")...)
		if err != nil {
			return err
		}
		for _, w := range strings.Fields(workloads) {
			if _, err := shell.Output(ctx, kubectl, append(kc, "-n", "argocd", "rollout", "status", w, "--timeout=5m")...); err != nil {
				return err
			}
		}
		t.Record("argocd "+tag+" install to rolled out", time.Since(s))
		_, _ = shell.Output(ctx, kubectl, append(kc, "delete", "-n", "argocd", "-f", manifest, "--wait")...)
		os.Remove(manifest)
	}
	deleteCluster()

	// Cluster reuse: the same cells both ways.
	reports, err := os.MkdirTemp("", "bench-infra.")
	if err != nil {
		return err
	}
	failed := false // a run that failed keeps its output for a look
	defer func() {
		if !failed {
			os.RemoveAll(reports)
		}
	}()
	e2e := func(variant string) error {
		run := e2erun.E2E(b.E2E, b.Repo, filepath.Join(reports, variant+".log"), "-test.count=1", "-test.timeout", "60m", "-test.run", "TestMatrix",
			"-scenario", "kubeovn-argocd", "-argocd", b.ArgoCD[0], "-kubernetes", b.Kubernetes.Version, "-variant", variant,
			"-cluster", b.Cluster, "-reports", filepath.Join(reports, variant))
		rc, err := in.Exec(run)
		switch {
		case err != nil:
			return err
		case rc == 130 || interrupted():
			return ErrInterrupted
		case rc != 0: // its time still counts; the figure says so
			failed = true
			fmt.Fprintf(b.Out, "kubeovn-argocd %s: the run exited %d (its output: %s)\n", variant, rc, run.Log)
		}
		return nil
	}
	s = time.Now()
	for _, v := range b.Cells {
		if err := e2e(v); err != nil {
			return err
		}
	}
	fresh := time.Since(s)
	t.Record("kubeovn-argocd "+strings.Join(b.Cells, ",")+": fresh cluster per cell", fresh)
	s = time.Now()
	if err := e2e(strings.Join(b.Cells, ",")); err != nil {
		return err
	}
	reused := time.Since(s)
	t.Record("kubeovn-argocd "+strings.Join(b.Cells, ",")+": one reused cluster", reused)
	ratio := fmt.Sprintf("%.2f", fresh.Seconds()/reused.Seconds())
	fmt.Fprintf(b.Out, "reuse ratio (fresh / reused): %s\n", ratio)
	t.Note("reuse ratio (fresh / reused)", ratio)
	text := fmt.Sprintf("# Benchmarks %s\n\n%s", Machine(start), t.Table())
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(b.Out, "written to %s\n", out)
	return nil
}

// NodeImage is the suite's node image to create clusters from: the one for
// Kubernetes version, else any other it built (not a base image, not a
// benchmark's own).
func NodeImage(ctx context.Context, version string) (string, error) {
	out, err := shell.Output(ctx, "docker", "images", "--format", "{{.Repository}}:{{.Tag}}", "gitops-conformance/node")
	if err != nil {
		return "", err
	}
	if img := PickNodeImage(strings.Fields(out), version); img != "" {
		return img, nil
	}
	return "", fmt.Errorf("no node image yet: run make test (or make e2e) once first")
}

// PickNodeImage picks from images (docker images' names) the node image of
// version, else the first other node image; "" when none.
func PickNodeImage(imgs []string, version string) string {
	var other string
	for _, img := range imgs {
		_, tag, _ := strings.Cut(img, ":")
		if strings.HasSuffix(tag, "-base") || tag == "bench" || tag == "<none>" {
			continue
		}
		if strings.HasPrefix(tag, version+"-") {
			return img
		}
		if other == "" {
			other = img
		}
	}
	return other
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
