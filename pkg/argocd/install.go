package argocd

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Namespace is where ArgoCD is installed.
const Namespace = "argocd"

// Controller is the application controller's workload, as kubectl takes it.
const Controller = "statefulset/argocd-application-controller"

// Installer puts one ArgoCD release at a time into a cluster.
type Installer struct {
	Kubectl  kube.Kubectl // applies and rollouts, as a user types them
	Kube     *kube.Client // reads
	Repo     string
	CacheDir string
	Mode     images.Mode
	Catalog  *catalog.Catalog
	Out      io.Writer
	// NoDex leaves argocd-dex-server out of an online install of a release
	// (a registry mirror that lacks dex's image); offline installs never have it.
	NoDex map[catalog.Release]bool
}

// SourcesEnv names, offline, where the source trees of the releases that do
// not build from their module zip (catalog.Release.FromSources) come from.
const SourcesEnv = "ARGOCD_SOURCES"

// Sources are those trees: a directory holding argo-cd-<tag>/ checkouts or
// argo-cd-<tag>.tar.gz archives of github.com/argoproj/argo-cd (see
// sources.Trees), each with the nested gitops-engine module the module zip
// leaves out. The Makefile sets ARGOCD_SOURCES to the catalog's default
// (argocd.sources.default, ../shared/upstream/argo-cd) when that exists.
var Sources = sources.Trees{Env: SourcesEnv, Project: "argo-cd", Marker: "gitops-engine/go.mod"}

// Tree is, offline, the source tree a release is built and installed from,
// and where it came from (an archive is extracted into the cache once); ""
// for a release that builds from its module zip, and online.
func (i *Installer) Tree(rel catalog.Release) (dir, src string, err error) {
	if i.Mode != images.Offline || !rel.FromSources() {
		return "", "", nil
	}
	return Sources.Tree(i.Repo, filepath.Join(i.CacheDir, "sources"), rel.String())
}

// Manifest returns the path of a release's install.yaml, ready to apply. It
// is the release's manifests/install.yaml (images/argocd/install-yaml.sh),
// from the argo-cd module zip in both modes, or offline, for a release built
// from its source tree (Tree), from that tree: offline adapted
// (IfNotPresent, no dex), online as published, without dex only where NoDex
// says so.
func (i *Installer) Manifest(ctx context.Context, rel catalog.Release) (string, error) {
	dir := filepath.Join(i.CacheDir, "manifests", "argocd-"+rel.String())
	adapt, dex := "offline", "drop"
	if i.Mode == images.Online {
		adapt, dex = "online", "keep"
		if i.NoDex[rel] {
			dex = "drop"
		}
	}
	name := "install-" + adapt + "-dex-" + dex
	args := []string{rel.String()}
	tree, _, err := i.Tree(rel)
	if err != nil {
		return "", fmt.Errorf("render argocd %s install.yaml: %w", rel, err)
	}
	if tree != "" {
		// one rendering per tree's install.yaml: another tree of the tag gets its own
		data, err := os.ReadFile(filepath.Join(tree, "manifests", "install.yaml"))
		if err != nil {
			return "", fmt.Errorf("render argocd %s install.yaml: %w", rel, err)
		}
		sum := sha256.Sum256(data)
		name += "-tree-" + hex.EncodeToString(sum[:])[:12]
	}
	path := filepath.Join(dir, name+".yaml")
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// a partial file of its own: clusters side by side render the same
	// release at once (PARALLEL), and the last rename wins with the same content
	tmp, err := os.CreateTemp(dir, name+".*.partial")
	if err != nil {
		return "", err
	}
	partial := tmp.Name()
	tmp.Close()
	defer os.Remove(partial) // renamed away when it worked
	args = append(args, partial)
	if tree != "" {
		args = append(args, tree)
	}
	if _, err := shell.Run(ctx, shell.Cmd{Name: filepath.Join(i.Repo, "images/argocd/install-yaml.sh"),
		Args: args, Env: []string{"CACHE_DIR=" + i.CacheDir, "ADAPT=" + adapt, "DEX=" + dex}}); err != nil {
		return "", fmt.Errorf("render argocd %s install.yaml: %w", rel, err)
	}
	return path, os.Rename(partial, path)
}

// ManifestImages lists the images a manifest's containers name, each once, in order.
func ManifestImages(manifest string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(manifest, "\n") {
		t := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
		img, ok := strings.CutPrefix(t, "image:")
		if !ok {
			continue
		}
		img = strings.Trim(strings.TrimSpace(img), `"'`)
		if img != "" && !seen[img] {
			seen[img] = true
			out = append(out, img)
		}
	}
	return out
}

// Install applies a release (fresh or over another one: an in-place upgrade),
// waits for every workload to roll out and verifies the running version.
func (i *Installer) Install(ctx context.Context, rel catalog.Release) error {
	start := time.Now()
	if err := i.ApplyOver(ctx, rel, ServerSide); err != nil {
		return err
	}
	if err := i.rollout(ctx); err != nil {
		return fmt.Errorf("install argocd %s: %w", rel, err)
	}
	running, err := i.Verify(ctx, rel)
	if err != nil {
		return err
	}
	fmt.Fprintf(i.Out, "argocd %s: installed and verified (%s) in %s\n", rel, running, time.Since(start).Round(time.Second))
	return nil
}

// ApplyOver applies a release's install manifests with the method (over a
// running release: an in-place upgrade), sets the suite's Config and
// restarts the application controller to read it; it waits for nothing.
// An apply the API server refuses is an error quoting it.
func (i *Installer) ApplyOver(ctx context.Context, rel catalog.Release, m Method) error {
	manifest, err := i.Manifest(ctx, rel)
	if err != nil {
		return err
	}
	return i.applyManifest(ctx, rel, manifest, m)
}

// InstallOverlay applies a release through the team's overlay
// (ApplyOverlay), restarts every workload (what the overlay sets in
// argocd-cmd-params-cm is read at start-up), waits for each to roll out and
// verifies the running version: the release as the team runs it.
func (i *Installer) InstallOverlay(ctx context.Context, rel catalog.Release, o Overlay) error {
	if err := i.ApplyOverlay(ctx, rel, o); err != nil {
		return err
	}
	if err := i.Restart(ctx); err != nil {
		return fmt.Errorf("install argocd %s through %s: %w", rel, o.Dir, err)
	}
	_, err := i.Verify(ctx, rel)
	return err
}

// ApplyOverlay applies a release's install manifests through the team's
// kustomize overlay (Overlay.Build), server-side, as ApplyOver applies
// them: over a running release, an upgrade in place. An overlay that does
// not build over the release's manifests is an *ApplyError of stage build.
func (i *Installer) ApplyOverlay(ctx context.Context, rel catalog.Release, o Overlay) error {
	manifest, err := i.Manifest(ctx, rel)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp(i.CacheDir, "overlay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	built, err := o.Build(ctx, i.Kubectl, rel, manifest, work)
	if err != nil {
		return err
	}
	return i.applyManifest(ctx, rel, built, Kustomize)
}

// applyManifest applies a release's manifest with the method's apply and
// configures ArgoCD as the suite runs it.
func (i *Installer) applyManifest(ctx context.Context, rel catalog.Release, manifest string, m Method) error {
	if _, err := i.Kubectl.Run(ctx, "create", "namespace", Namespace); err != nil && !strings.Contains(err.Error(), "AlreadyExists") {
		return fmt.Errorf("install argocd %s: %w", rel, err)
	}
	var err error
	switch m {
	case ServerSide, Kustomize:
		err = i.Kubectl.ApplyFile(ctx, manifest, "-n", Namespace)
	case ClientSide:
		_, err = i.Kubectl.Run(ctx, "apply", "-n", Namespace, "-f", manifest)
	default:
		err = fmt.Errorf("no upgrade method %q", m)
	}
	if err != nil {
		return &ApplyError{Release: rel, Method: m, Err: err, Refusals: refusals(err), Applied: applied(err)}
	}
	if err := i.configure(ctx); err != nil {
		return fmt.Errorf("install argocd %s: %w", rel, err)
	}
	// The controller reads timeout.reconciliation at start-up only.
	if _, err := i.Kubectl.Run(ctx, "-n", Namespace, "rollout", "restart", Controller); err != nil {
		return fmt.Errorf("install argocd %s: %w", rel, err)
	}
	return nil
}

// ApplyError is the API server's refusal of a release's install manifests
// (a CRD too large for client-side apply's annotation, say), as kubectl
// printed it.
type ApplyError struct {
	Release catalog.Release
	Method  Method
	// Stage is "build" when a team's overlay did not build over the
	// release's manifests (nothing was applied), "" for the apply.
	Stage string
	Err   error
	// Refusals are the lines of kubectl's output that say what the API
	// server refused (its warnings and the objects applied left out).
	Refusals []string
	// Applied is how many objects kubectl applied all the same: it goes on
	// past a refused object, so the release is then part applied
	// (argo-cd#26264's refused CRD left every other object of v3.3.14's
	// install.yaml applied and its Deployments rolling out, run
	// 20261128-105315).
	Applied int
}

func (e *ApplyError) Error() string {
	if len(e.Refusals) > 0 {
		return fmt.Sprintf("install argocd %s (%s): %s", e.Release, e.Method.Command(), strings.Join(e.Refusals, "; "))
	}
	return fmt.Sprintf("install argocd %s (%s): %v", e.Release, e.Method.Command(), e.Err)
}

// refusals are the lines of a failed kubectl apply's output that say what
// was refused: "The CustomResourceDefinition "x" is invalid: ...", "Error
// from server (...): ...", "error: ...".
func refusals(err error) []string {
	var failed *shell.Error
	if !errors.As(err, &failed) {
		return nil
	}
	var out []string
	for _, l := range strings.Split(failed.Output, "\n") {
		l = strings.TrimSpace(l)
		if strings.Contains(l, " is invalid: ") || strings.HasPrefix(l, "Error from server") || strings.HasPrefix(l, "error: ") {
			out = append(out, l)
		}
	}
	return out
}

// appliedLine is kubectl apply's line for an object it applied:
// "networkpolicy.networking.k8s.io/argocd-server-network-policy configured".
var appliedLine = regexp.MustCompile(`^\S+/\S+ (created|configured|unchanged|serverside-applied)$`)

// applied counts the objects a failed kubectl apply applied all the same.
func applied(err error) int {
	var failed *shell.Error
	if !errors.As(err, &failed) {
		return 0
	}
	n := 0
	for _, l := range strings.Split(failed.Output, "\n") {
		if appliedLine.MatchString(strings.TrimSpace(l)) {
			n++
		}
	}
	return n
}

func (e *ApplyError) Unwrap() error { return e.Err }

// Verify asks the running API server its version: rel's, or an error.
func (i *Installer) Verify(ctx context.Context, rel catalog.Release) (string, error) {
	running, err := i.RunningVersion(ctx)
	if err != nil {
		return "", fmt.Errorf("install argocd %s: %w", rel, err)
	}
	if !SameRelease(running, rel.String()) {
		return "", fmt.Errorf("install argocd %s: the API server reports %s", rel, running)
	}
	return running, nil
}

// Workloads are the release's Deployments and StatefulSets as they run
// ("deployment.apps/argocd-server"), each with its replicas.
func (i *Installer) Workloads(ctx context.Context) ([]Workload, error) {
	out, err := i.Kubectl.Run(ctx, "-n", Namespace, "get", "deploy,statefulset", "-o",
		`jsonpath={range .items[*]}{.kind}{" "}{.metadata.name}{" "}{.spec.replicas}{"\n"}{end}`)
	if err != nil {
		return nil, err
	}
	var ws []Workload
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var w Workload
		if _, err := fmt.Sscanf(l, "%s %s %d", &w.Kind, &w.Name, &w.Replicas); err == nil {
			ws = append(ws, w)
		}
	}
	return ws, nil
}

// Workload is a Deployment or StatefulSet of the release.
type Workload struct {
	Kind, Name string
	Replicas   int
}

// Config is what the suite sets in the stock argocd-cm after an install: a
// short reconciliation timeout so refreshes come quickly. Nothing else.
var Config = map[string]string{"timeout.reconciliation": "15s"}

func (i *Installer) configure(ctx context.Context) error {
	patch, _ := json.Marshal(map[string]any{"data": Config})
	_, err := i.Kubectl.Run(ctx, "-n", Namespace, "patch", "configmap", "argocd-cm", "--type", "merge", "-p", string(patch))
	return err
}

// Restart restarts every Deployment and StatefulSet of the release (their
// flags, argocd-cmd-params-cm, are read at start-up only) and waits for
// each to roll out.
func (i *Installer) Restart(ctx context.Context) error {
	ws, err := i.workloadRefs(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		if _, err := i.Kubectl.Run(ctx, "-n", Namespace, "rollout", "restart", w); err != nil {
			return err
		}
	}
	return i.rollout(ctx)
}

// workloadRefs are the release's Deployments and StatefulSets as kubectl
// names them (deployment.apps/argocd-server).
func (i *Installer) workloadRefs(ctx context.Context) ([]string, error) {
	out, err := i.Kubectl.Run(ctx, "-n", Namespace, "get", "deploy,statefulset", "-o", "name")
	if err != nil {
		return nil, err
	}
	return strings.Fields(out), nil
}

func (i *Installer) rollout(ctx context.Context) error {
	ws, err := i.workloadRefs(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		if _, err := i.Kubectl.Run(ctx, "-n", Namespace, "rollout", "status", w, "--timeout=5m"); err != nil {
			return fmt.Errorf("rollout %s/%s: %w", Namespace, w, err)
		}
	}
	return nil
}

// RunningVersion asks the running API server for its version, through the
// Kubernetes API server's service proxy.
func (i *Installer) RunningVersion(ctx context.Context) (string, error) {
	var v struct{ Version string }
	var last error
	for range 30 {
		out, err := serverRequest(ctx, i.Kube, "GET", "/api/version", nil, nil)
		if err == nil {
			if err := json.Unmarshal(out, &v); err == nil && v.Version != "" {
				return v.Version, nil
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return "", fmt.Errorf("read running argocd version: %w", last)
}

// SameRelease reports whether a reported version ("v2.14.11+8283115") is tag.
func SameRelease(reported, tag string) bool {
	return reported == tag || strings.HasPrefix(reported, tag+"+")
}

// Uninstall removes Applications (without touching what they manage), the
// release and its namespace.
func (i *Installer) Uninstall(ctx context.Context, rel catalog.Release) error {
	_, _ = i.Kubectl.Run(ctx, "-n", Namespace, "patch", "applications", "--all", "--type", "json",
		"-p", `[{"op":"remove","path":"/metadata/finalizers"}]`)
	_, _ = i.Kubectl.Run(ctx, "-n", Namespace, "delete", "applications", "--all", "--wait=false")
	manifest, err := i.Manifest(ctx, rel)
	if err != nil {
		return err
	}
	if _, err := i.Kubectl.Run(ctx, "delete", "-n", Namespace, "-f", manifest, "--ignore-not-found", "--wait", "--timeout=3m"); err != nil {
		return fmt.Errorf("uninstall argocd %s: %w", rel, err)
	}
	if _, err := i.Kubectl.Run(ctx, "delete", "namespace", Namespace, "--ignore-not-found", "--timeout=3m"); err != nil {
		return fmt.Errorf("uninstall argocd %s: %w", rel, err)
	}
	return nil
}
