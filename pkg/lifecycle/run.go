// Package lifecycle is the life of a run and of its cells: the state of a run
// (*Run: mode, images, the cluster, the installed ArgoCD release, the git
// server) and of a cell (*Cell: evidence, steps, cleanups), carried in ctx
// under unexported keys; the e2e-framework env funcs in symmetric pairs
// (Preflight, CreateCluster/DestroyCluster) and the Run's methods the runner
// calls (InstallArgoCD/UninstallArgoCD, UpgradeArgoCD, End). Scenarios do not
// import it: they use pkg/env, pkg/check, pkg/fixture and pkg/assert.
package lifecycle

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/types"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/cluster"
	"github.com/gitops-conformance/suite/pkg/gitserver"
	"github.com/gitops-conformance/suite/pkg/host"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/kube"
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
	ArgoCD    string // the release installed now, "" for none
	Dirty     bool   // a cell's cleanup failed: the cluster is not left for reuse
	Images    *images.Builder
	NodeImage string
	// NeedsCluster, when set, tells CreateCluster whether the run needs one
	// once the mode is known (a run whose every cell is skipped does not).
	NeedsCluster func(images.Mode) bool

	plan     host.Plan
	cluster  *cluster.Cluster
	kindBin  string
	loaded   map[string]bool // images loaded into the cluster
	gitImage string
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

// Preflight prepares the host (Docker, tools, the runc wrapper) and detects the mode.
func Preflight() types.EnvFunc {
	return func(ctx context.Context, _ *envconf.Config) (context.Context, error) {
		r := From(ctx)
		facts := host.Gather(ctx)
		r.plan = host.Decide(facts)
		r.Logf("preflight: %s", r.plan)
		if err := host.Apply(ctx, r.plan, r.Repo, r.Logf); err != nil {
			return ctx, fmt.Errorf("preflight: %w", err)
		}
		r.Mode, r.ModeWhy = images.Detect(ctx, r.Mode, images.HTTPProbe)
		r.Logf("mode: %s (%s)", r.Mode, r.ModeWhy)
		r.Images = &images.Builder{Repo: r.Repo, CacheDir: r.CacheDir, NoSysResource: r.plan.NoSysResource, Catalog: r.Catalog, Out: r.Out}
		return ctx, os.MkdirAll(filepath.Join(r.CacheDir, "tmp"), 0o755)
	}
}

// CreateCluster provides the node image and a running cluster (reused when
// its node image matches).
func CreateCluster() types.EnvFunc {
	return func(ctx context.Context, cfg *envconf.Config) (context.Context, error) {
		r := From(ctx)
		if r.NeedsCluster != nil && !r.NeedsCluster(r.Mode) {
			r.Logf("cluster %s: not created, every cell is skipped %s", r.Cluster, r.Mode)
			return ctx, nil
		}
		var err error
		r.NodeImage = r.Catalog.Kubernetes.OnlineNodeImage
		if r.Mode == images.Offline {
			if r.NodeImage, err = r.Images.NodeImage(ctx); err != nil {
				return ctx, err
			}
		}
		if r.kindBin, err = cluster.KindBinary(ctx, filepath.Join(r.CacheDir, "bin"), r.Catalog.Kind); err != nil {
			return ctx, err
		}
		config, err := r.kindConfig()
		if err != nil {
			return ctx, err
		}
		spec := cluster.Spec{Name: r.Cluster, Image: r.NodeImage, Config: config, Kind: r.kindBin}
		if r.cluster, err = cluster.Ensure(ctx, spec, r.Out); err != nil {
			return ctx, err
		}
		r.Kubectl = kube.Kubectl{Bin: r.kubectlBin(), Kubeconfig: r.cluster.Kubeconfig}
		if r.cluster.Reused && !r.leftClean(ctx) {
			// a run that crashed or failed its cleanup may have left webhooks or
			// finalizers behind: such a cluster is not reused
			r.Logf("cluster %s: the run that kept it did not finish cleanly; recreating", r.Cluster)
			if err := cluster.Delete(ctx, spec); err != nil {
				return ctx, err
			}
			if r.cluster, err = cluster.Ensure(ctx, spec, r.Out); err != nil {
				return ctx, err
			}
			r.Kubectl = kube.Kubectl{Bin: r.kubectlBin(), Kubeconfig: r.cluster.Kubeconfig}
		}
		if r.REST, err = clientcmd.BuildConfigFromFlags("", r.cluster.Kubeconfig); err != nil {
			return ctx, fmt.Errorf("read kubeconfig: %w", err)
		}
		cfg.WithKubeconfigFile(r.cluster.Kubeconfig)
		if r.Kube, err = kube.NewClient(r.REST); err != nil {
			return ctx, err
		}
		if r.Apps, err = argocd.NewApps(r.REST); err != nil {
			return ctx, err
		}
		r.Installer = &argocd.Installer{Kubectl: r.Kubectl, Kube: r.Kube, Repo: r.Repo, CacheDir: r.CacheDir, Mode: r.Mode, Catalog: r.Catalog, Out: r.Out}
		r.loaded = map[string]bool{}
		if _, err := r.Kubectl.Run(ctx, "wait", "--for=condition=Ready", "node", "--all", "--timeout=3m"); err != nil {
			return ctx, fmt.Errorf("wait for the node: %w", err)
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
			return ctx, fmt.Errorf("wait for the cluster's controllers: %w", err)
		}
		if r.cluster.Reused {
			r.ArgoCD = r.installedArgoCD(ctx)
		}
		return ctx, r.markClean(ctx, false)
	}
}

// kindConfig is the repository's kind-config.yaml; online the node image has
// no CNI of its own, so kind's default CNI is turned back on.
func (r *Run) kindConfig() (string, error) {
	path := filepath.Join(r.Repo, "kind-config.yaml")
	if r.Mode == images.Offline {
		return path, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	online := filepath.Join(r.CacheDir, "tmp", "kind-config-online.yaml")
	return online, os.WriteFile(online, []byte(strings.ReplaceAll(string(data), "disableDefaultCNI: true", "disableDefaultCNI: false")), 0o644)
}

// kubectlBin is the kubectl built with the node image, or the one on PATH online.
func (r *Run) kubectlBin() string {
	built := filepath.Join(r.CacheDir, "bin", "kubernetes-"+r.Catalog.Kubernetes.Version, "kubectl")
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
		if r.cluster == nil {
			return ctx, nil
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), destroyTimeout)
		defer cancel()
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
