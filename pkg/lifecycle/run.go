package lifecycle

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/types"

	"github.com/gitops-conformance/suite/internal/cluster"
	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/host"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Run is the state of one run of the suite.
type Run struct {
	Repo      string // the suite's checkout
	CacheDir  string
	Catalog   *catalog.Catalog
	Mode      images.Mode
	ModeWhy   string
	Keep      bool   // keep the cluster at the end
	Cluster   string // kind cluster name
	Out       io.Writer
	Notes     []string
	Kubectl   kube.Kubectl // for what a user would type and the evidence quotes
	Kube      *kube.Client // for reads: the checks and the waits
	REST      *rest.Config
	Apps      *argocd.Apps
	Git       *gitserver.Server
	Installer *argocd.Installer
	// stopPrebuild ends the prebuild (Prebuild) and waits for it.
	stopPrebuild func()
	// building is the time spent in builds so far (BuildTime).
	building atomic.Int64
	ArgoCD   catalog.Release // the release installed now; zero for none
	// Kubernetes is the version of the cluster (the one CreateCluster makes,
	// then the one running); KubeServer is the version its API server
	// reports, what a cell's report records.
	Kubernetes catalog.KubeVersion
	KubeServer string
	Dirty      bool // a cell's cleanup failed: the cluster is not left for reuse
	Images     *images.Builder
	NodeImage  string
	// NodeImageChoice is the user's: "" the mode's node image, "built" the
	// suite's build in either mode, or an image name.
	NodeImageChoice string
	// Mirror, when set, is the registry the nodes pull the upstream names
	// through (REGISTRY_MIRROR; online).
	Mirror *registry.Mirror
	// Deliver is how offline builds reach the nodes: "load" (kind load, the
	// default) or "registry": pushed once into the suite's registry (local),
	// which the nodes pull through as their mirror.
	Deliver string
	// SharedRegistry names a running registry container (a parallel run's,
	// started by its coordinator) that this run delivers through and leaves
	// running; empty: the run starts its own when it delivers by registry.
	SharedRegistry string
	local          *registry.Local
	// NeedsCluster, when set, tells CreateCluster whether the run needs one
	// once the mode is known (a run whose every cell is skipped does not).
	NeedsCluster func(images.Mode) bool

	plan     host.Plan
	cluster  *cluster.Cluster
	kindBin  string
	loaded   map[string]bool // images loaded into the cluster
	gitImage string          // the image the next git server starts on: an ArgoCD image loaded into this cluster
}

type runKey struct{}

// WithRun puts r into ctx.
func WithRun(ctx context.Context, r *Run) context.Context { return context.WithValue(ctx, runKey{}, r) }

// From returns the run in ctx; it panics when there is none (a wiring bug).
func From(ctx context.Context) *Run {
	r, ok := ctx.Value(runKey{}).(*Run)
	if !ok {
		panic("env: no *env.Run in context")
	}
	return r
}

// Logf prints one progress line with a timestamp.
func (r *Run) Logf(format string, args ...any) {
	fmt.Fprintf(r.Out, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// BuildTime is the time the run has spent building images (or finding
// them cached, or waiting for another run's build) so far.
func (r *Run) BuildTime() time.Duration { return time.Duration(r.building.Load()) }

// Preflight prepares the host (Docker, tools, the runc wrapper) and detects the mode.
func Preflight() types.EnvFunc {
	return func(ctx context.Context, _ *envconf.Config) (context.Context, error) {
		r := From(ctx)
		facts := host.Gather(ctx, r.CacheDir)
		r.plan = host.Decide(facts)
		r.Logf("preflight: %s", r.plan)
		for _, w := range r.plan.Warnings {
			r.Logf("preflight: %s", w)
		}
		if err := host.Apply(ctx, r.plan, r.Repo, r.Logf); err != nil {
			return ctx, fmt.Errorf("preflight: %w", err)
		}
		if r.Mirror != nil && r.Mode == images.Auto {
			r.Mode, r.ModeWhy = images.Online, "REGISTRY_MIRROR="+r.Mirror.String()+": images are pulled through it"
		} else {
			r.Mode, r.ModeWhy = images.Detect(ctx, r.Mode, images.HTTPProbe)
		}
		if r.Mirror != nil {
			r.Logf("registry mirror: %s (nodes pull %s through it)", r.Mirror, strings.Join(registry.Upstreams, ", "))
		}
		r.Logf("mode: %s (%s)", r.Mode, r.ModeWhy)
		r.Images = &images.Builder{Repo: r.Repo, CacheDir: r.CacheDir, NoSysResource: r.plan.NoSysResource, Catalog: r.Catalog, Out: r.Out,
			Space: func() error { return host.DiskSpace(facts.Disks) }, Spent: func(d time.Duration) { r.building.Add(int64(d)) }}
		return ctx, os.MkdirAll(filepath.Join(r.CacheDir, "tmp"), 0o755)
	}
}

// CreateCluster provides the node image and a running cluster of
// r.Kubernetes (reused when its node image matches).
func CreateCluster() types.EnvFunc {
	return func(ctx context.Context, cfg *envconf.Config) (context.Context, error) {
		r := From(ctx)
		if r.NeedsCluster != nil && !r.NeedsCluster(r.Mode) {
			r.Logf("cluster %s: not created, every cell is skipped %s", r.Cluster, r.Mode)
			return ctx, nil
		}
		if err := r.createCluster(ctx); err != nil {
			return ctx, err
		}
		cfg.WithKubeconfigFile(r.cluster.Kubeconfig)
		return ctx, nil
	}
}

// UseKubernetes makes the run's cluster one of Kubernetes k: the cluster
// there is when it is of k, else a new one in its place (the old one is
// deleted: one cluster per run at a time, under the run's name). The
// release installed, the git server and the images loaded go with the old
// cluster.
func (r *Run) UseKubernetes(ctx context.Context, k catalog.KubeVersion) error {
	if k.Version == "" { // a cell that names none runs where the run is
		if r.cluster != nil {
			return nil
		}
		k = r.Kubernetes
	}
	if r.cluster != nil && r.Kubernetes == k {
		return nil
	}
	if r.cluster != nil {
		r.Logf("cluster %s: Kubernetes %s done, deleting it for %s", r.Cluster, r.Kubernetes.Version, k.Version)
		if err := cluster.Delete(ctx, r.cluster.Spec); err != nil {
			return fmt.Errorf("delete the cluster of Kubernetes %s: %w", r.Kubernetes.Version, err)
		}
		r.cluster = nil
	}
	r.Kubernetes, r.ArgoCD, r.Dirty, r.Git = k, catalog.Release{}, false, nil
	return r.createCluster(ctx)
}

// createCluster is CreateCluster's work: the node image of r.Kubernetes,
// the cluster, the clients.
func (r *Run) createCluster(ctx context.Context) error {
	var err error
	built := r.NodeImageChoice == "built" || (r.NodeImageChoice == "" && r.Mode == images.Offline)
	switch {
	case built:
		if r.NodeImage, err = r.Images.NodeImage(ctx, r.Kubernetes); err != nil {
			return err
		}
	case r.NodeImageChoice != "":
		r.NodeImage = r.NodeImageChoice
	default:
		r.NodeImage = r.Kubernetes.OnlineNodeImage
	}
	if built && r.Mode == images.Online {
		r.noteOnce("node image: the suite's build %s (Kubernetes %s, NODE_IMAGE=built); Docker runs it, containerd pulls no image of it", r.NodeImage, r.Kubernetes.Version)
	}
	if r.kindBin, err = cluster.KindBinary(ctx, filepath.Join(r.CacheDir, "bin"), r.Catalog.Kind); err != nil {
		return err
	}
	if err := r.startRegistry(ctx); err != nil {
		return err
	}
	config, err := r.kindConfig(built)
	if err != nil {
		return err
	}
	spec := cluster.Spec{Name: r.Cluster, Image: r.NodeImage, Config: config, Kind: r.kindBin}
	if r.cluster, err = cluster.Ensure(ctx, spec, r.Out); err != nil {
		return err
	}
	r.Kubectl = kube.Kubectl{Bin: r.kubectlBin(), Kubeconfig: r.cluster.Kubeconfig}
	if r.cluster.Reused && !r.leftClean(ctx) {
		// a run that crashed or failed its cleanup may have left webhooks or
		// finalizers behind: such a cluster is not reused
		r.Logf("cluster %s: the run that kept it did not finish cleanly; recreating", r.Cluster)
		if err := cluster.Delete(ctx, spec); err != nil {
			return err
		}
		if r.cluster, err = cluster.Ensure(ctx, spec, r.Out); err != nil {
			return err
		}
		r.Kubectl = kube.Kubectl{Bin: r.kubectlBin(), Kubeconfig: r.cluster.Kubeconfig}
	}
	if r.REST, err = clientcmd.BuildConfigFromFlags("", r.cluster.Kubeconfig); err != nil {
		return fmt.Errorf("read kubeconfig: %w", err)
	}
	if r.KubeServer, err = serverVersion(r.REST); err != nil {
		return err
	}
	if r.KubeServer != r.Kubernetes.Version {
		r.noteOnce("Kubernetes %s: the cluster runs %s (node image %s); its cells record %s", r.Kubernetes.Version, r.KubeServer, r.NodeImage, r.KubeServer)
	}
	if r.Kube, err = kube.NewClient(r.REST); err != nil {
		return err
	}
	if r.Apps, err = argocd.NewApps(r.REST); err != nil {
		return err
	}
	if err := r.configureMirror(ctx); err != nil {
		return err
	}
	r.Installer = &argocd.Installer{Kubectl: r.Kubectl, Kube: r.Kube, Repo: r.Repo, CacheDir: r.CacheDir, Mode: r.Mode, Catalog: r.Catalog, Out: r.Out,
		NoDex: map[catalog.Release]bool{}}
	r.loaded = map[string]bool{}
	if _, err := r.Kubectl.Run(ctx, "wait", "--for=condition=Ready", "node", "--all", "--timeout=3m"); err != nil {
		return fmt.Errorf("wait for the node: %w", err)
	}
	// a new cluster's controllers start after the node is Ready: until the
	// ServiceAccount controller runs, Pods in a new namespace are refused
	if err := assert.Eventually(ctx, "serviceaccount default/default", assert.Intervals.Rollout, func(ctx context.Context) (bool, string, error) {
		_, err := r.Kube.Get(ctx, "serviceaccount", "default", "default")
		if err != nil {
			return false, "not yet", nil
		}
		return true, "exists", nil
	}); err != nil {
		return fmt.Errorf("wait for the cluster's controllers: %w", err)
	}
	if r.cluster.Reused {
		r.ArgoCD = r.installedArgoCD(ctx)
	}
	return r.markClean(ctx, false)
}

// serverVersion is the Kubernetes version the cluster's API server reports.
func serverVersion(cfg *rest.Config) (string, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return "", fmt.Errorf("the API server's version: %w", err)
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return "", fmt.Errorf("the API server's version: %w", err)
	}
	return v.GitVersion, nil
}

// RegistryName is the container name of the run's own registry.
func (r *Run) RegistryName() string { return r.Cluster + "-registry" }

// startRegistry starts the suite's registry for an offline run that
// delivers its builds through it (DELIVER=registry); the nodes then pull the
// upstream names through it as their mirror. DestroyCluster removes it.
func (r *Run) startRegistry(ctx context.Context) error {
	if r.Mode != images.Offline || r.Deliver != "registry" || r.local != nil {
		return nil
	}
	if r.SharedRegistry != "" {
		l, err := registry.Attach(ctx, r.SharedRegistry)
		if err != nil {
			return fmt.Errorf("the parallel run's registry: %w", err)
		}
		r.local, r.Mirror = l, &l.Mirror
		r.noteOnce("offline: built images delivered through the registry %s at %s, shared by the run's clusters (pushed once, pulled by every node) instead of kind load", l.Name, l.Mirror)
		return nil
	}
	image, err := r.Images.Registry(ctx)
	if err != nil {
		return err
	}
	name := r.RegistryName()
	if r.local, err = registry.Start(ctx, name, image, registry.DataDir(r.CacheDir, name), r.Out); err != nil {
		return err
	}
	r.Mirror = &r.local.Mirror
	r.noteOnce("offline: built images delivered through the suite's registry %s at %s (pushed once, pulled by the nodes) instead of kind load", name, r.local.Mirror)
	return nil
}

// StartRegistry starts the run's registry when it delivers its builds by
// registry (a parallel run's coordinator, whose shards then share it).
func (r *Run) StartRegistry(ctx context.Context) (string, error) {
	if err := r.startRegistry(ctx); err != nil || r.local == nil {
		return "", err
	}
	return r.local.Name, nil
}

// StopRegistry removes the registry StartRegistry started (unless KEEP).
func (r *Run) StopRegistry(ctx context.Context) error { return r.stopRegistry(ctx) }

// stopRegistry removes the run's registry unless the run keeps its cluster,
// or another run owns it (SharedRegistry).
func (r *Run) stopRegistry(ctx context.Context) error {
	if r.local == nil || r.SharedRegistry != "" {
		return nil
	}
	if r.Keep {
		r.Logf("registry %s: kept with the cluster; remove it with: %s", r.local.Name, r.DeleteCommand())
		return nil
	}
	if err := r.local.Stop(ctx); err != nil {
		r.Logf("registry %s: %v; remove it with: docker rm -f %s", r.local.Name, err, r.local.Name)
		return err
	}
	r.Logf("registry %s: removed (its data stays in %s)", r.local.Name, r.local.DataDir)
	return nil
}

// kindConfig is the repository's kind-config.yaml as the run needs it. The
// suite's node image ships its own CNI (kind's default CNI off, as the file
// says); any other node image (kindest/node) gets kind's default CNI back.
// With a registry mirror, containerd reads hosts.toml files (kind's
// containerdConfigPatches, as kind documents for a local registry).
func (r *Run) kindConfig(builtNode bool) (string, error) {
	path := filepath.Join(r.Repo, "kind-config.yaml")
	if builtNode && r.Mirror == nil {
		return path, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	config := string(data)
	name := "kind-config"
	if !builtNode {
		config = strings.ReplaceAll(config, "disableDefaultCNI: true", "disableDefaultCNI: false")
		name += "-kindnet"
		if failsOnCgroupV1(r.Kubernetes.OnlineVersion()) && cgroupV1() {
			// the suite's own node images pass --fail-cgroupv1=false
			// (images/node/build.sh); kind's published ones are told here
			config += "kubeadmConfigPatches:\n  - |\n    kind: KubeletConfiguration\n    failCgroupV1: false\n"
			name += "-cgroupv1"
		}
	}
	if r.Mirror != nil {
		config += "containerdConfigPatches:\n  - |-\n    " + strings.ReplaceAll(registry.ContainerdPatch, "\n", "\n    ") + "\n"
		name += "-mirror"
	}
	out := filepath.Join(r.CacheDir, "tmp", name+".yaml")
	return out, os.WriteFile(out, []byte(config), 0o644)
}

// failsOnCgroupV1 reports whether a kubelet of Kubernetes version refuses
// to start on a cgroup v1 host by default (failCgroupV1, true from 1.35).
func failsOnCgroupV1(version string) bool {
	n := catalog.TagNumbers(version)
	return n[0] > 1 || n[0] == 1 && n[1] >= 35
}

// cgroupV1 reports whether this host mounts cgroup v1 (no unified hierarchy).
func cgroupV1() bool {
	_, err := os.Stat("/sys/fs/cgroup/cgroup.controllers")
	return err != nil
}

// configureMirror writes, into every node, containerd's hosts.toml for each
// upstream registry, naming the mirror (containerd reads them at each pull:
// no restart). A cluster made without the mirror's config has none; the
// config hash kept with the cluster makes such a one be recreated, not reused.
func (r *Run) configureMirror(ctx context.Context) error {
	if r.Mirror == nil {
		return nil
	}
	nodes, err := shell.Output(ctx, r.kindBin, "get", "nodes", "--name", r.Cluster)
	if err != nil {
		return fmt.Errorf("configure registry mirror: %w", err)
	}
	if err := registry.ConfigureNodes(ctx, strings.Fields(nodes), *r.Mirror); err != nil {
		return err
	}
	r.Logf("registry mirror: node(s) %s pull %s through %s", strings.Join(strings.Fields(nodes), ", "), strings.Join(registry.Upstreams, ", "), r.Mirror)
	if r.local == nil {
		r.noteOnce("images pulled by the nodes through the registry mirror %s (containerd hosts.toml for %s)", r.Mirror, strings.Join(registry.Upstreams, ", "))
	}
	return nil
}

// kubectlBin is the kubectl built with the node image, or the one on PATH online.
func (r *Run) kubectlBin() string {
	built := filepath.Join(r.CacheDir, "bin", "kubernetes-"+r.Kubernetes.Version, "kubectl")
	if _, err := os.Stat(built); err == nil {
		return built
	}
	return "kubectl"
}

// destroyTimeout bounds the deletion of the cluster at the end of a run.
const destroyTimeout = 3 * time.Minute

// DestroyCluster deletes the cluster unless the run keeps it. It runs after
// an interrupt too (ctx cancelled), so it is not cancelled with the run.
func DestroyCluster() types.EnvFunc {
	return func(ctx context.Context, _ *envconf.Config) (context.Context, error) {
		r := From(ctx)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), destroyTimeout)
		defer cancel()
		defer func() { _ = r.stopRegistry(ctx) }()
		if r.cluster == nil {
			return ctx, nil
		}
		if r.Keep {
			if !r.Dirty {
				if err := r.markClean(ctx, true); err != nil {
					return ctx, err
				}
			}
			r.Logf("cluster %s: kept (KEEP=1, clean: %v); delete it with: %s", r.Cluster, !r.Dirty, r.DeleteCommand())
			return ctx, nil
		}
		r.Logf("cluster %s: deleting", r.Cluster)
		start := time.Now()
		if err := cluster.Delete(ctx, r.cluster.Spec); err != nil {
			r.Logf("cluster %s: %v; delete it with: %s", r.Cluster, err, r.DeleteCommand())
			return ctx, err
		}
		r.Logf("cluster %s: deleted in %s", r.Cluster, time.Since(start).Round(time.Second))
		return ctx, nil
	}
}

// DeleteCommand is the command that deletes the run's cluster by hand.
func (r *Run) DeleteCommand() string {
	return "make cluster-delete CLUSTER=" + r.Cluster
}

// ExportLogs writes kind's node logs (kubelet, containerd, pods) under dir.
func (r *Run) ExportLogs(ctx context.Context, dir string) error {
	if r.cluster == nil {
		return nil
	}
	return r.cluster.ExportLogs(ctx, dir)
}

// stateConfigMap records in the cluster whether the run that kept it ended cleanly.
const stateConfigMap = "gitops-conformance-state"

func (r *Run) leftClean(ctx context.Context) bool {
	out, err := r.Kubectl.Run(ctx, "-n", "kube-system", "get", "configmap", stateConfigMap, "-o", "jsonpath={.data.clean}")
	return err == nil && strings.TrimSpace(out) == "true"
}

func (r *Run) markClean(ctx context.Context, clean bool) error {
	manifest := fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s, namespace: kube-system}\ndata: {clean: %q}\n", stateConfigMap, fmt.Sprint(clean))
	if err := r.Kubectl.Apply(ctx, manifest); err != nil {
		return fmt.Errorf("record cluster state: %w", err)
	}
	return nil
}
