package metricsserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Component is metrics-server's name in the catalog and its image recipe's
// (images/metrics-server/build.sh).
const Component = "metrics-server"

// None is METRICS' value for a cluster without metrics-server.
const None = "none"

// Namespace, Deployment and APIService are where the release's manifests
// put it and the API it serves.
const (
	Namespace  = "kube-system"
	Deployment = "metrics-server"
	Service    = "metrics-server"
	APIService = "v1beta1.metrics.k8s.io"
	// NodesPath is what `kubectl top nodes` reads: it answers once the
	// aggregated API is available and metrics-server has scraped the
	// kubelets (what the HorizontalPodAutoscaler controller needs too).
	NodesPath = "/apis/metrics.k8s.io/v1beta1/nodes"
)

// InsecureTLS is the flag kind's clusters need: the kubelets' serving
// certificates are self-signed, so metrics-server does not verify them.
const InsecureTLS = "--kubelet-insecure-tls"

// Release is the overlay of the module zip that upstream's release
// manifest (components.yaml) is rendered from.
const Release = "manifests/overlays/release"

// Setting is a run's METRICS: the metrics-server version its cluster runs,
// or none ("").
type Setting struct {
	Version string
}

// On reports whether the cluster runs metrics-server.
func (s Setting) On() bool { return s.Version != "" }

// String is the setting as the report says it: "metrics-server v0.9.0", or
// "none".
func (s Setting) String() string {
	if !s.On() {
		return "no metrics-server (METRICS=none)"
	}
	return Component + " " + s.Version
}

// Parse reads METRICS: empty is the catalog's metrics-server (its first
// pinned version), "none" is none, a version is that one if the catalog
// pins it. Anything else is refused in one line naming the choices.
func Parse(value string, cat *catalog.Catalog) (Setting, error) {
	comp, err := cat.Component(Component)
	if err != nil {
		return Setting{}, err
	}
	if len(comp.Versions) == 0 {
		return Setting{}, fmt.Errorf("the catalog pins no %s version", Component)
	}
	switch v := strings.TrimSpace(value); {
	case v == "":
		return Setting{Version: comp.Versions[0]}, nil
	case v == None:
		return Setting{}, nil
	case slices.Contains(comp.Versions, v):
		return Setting{Version: v}, nil
	default:
		return Setting{}, fmt.Errorf("METRICS %q: want %s (no metrics-server) or a %s version the catalog pins (%s); empty: %s %s",
			value, None, Component, strings.Join(comp.Versions, ", "), Component, comp.Versions[0])
	}
}

// Rendered is metrics-server's manifest and what it was made of.
type Rendered struct {
	Manifest string
	// Image is the image the Deployment runs (the release's name for it).
	Image string
	// Added are the flags the suite added to upstream's release manifest
	// (none when upstream's has them already).
	Added []string
}

// Render renders the module zip's release overlay (module is the zip's
// tree: its manifests/ at least) as `kubectl kustomize
// manifests/overlays/release` does, and adds InsecureTLS to the
// metrics-server container's args unless the release has it already.
func Render(module fs.FS) (Rendered, error) {
	disk, root, done, err := onDisk(module, "manifests")
	if err != nil {
		return Rendered{}, err
	}
	defer done()
	release, err := kustomize(disk, root, Release)
	if err != nil {
		return Rendered{}, err
	}
	args, image, err := container(release)
	if err != nil {
		return Rendered{}, fmt.Errorf("%s: %w", Release, err)
	}
	if slices.Contains(args, InsecureTLS) {
		return Rendered{Manifest: release, Image: image}, nil
	}
	const kind = "manifests/overlays/gitops-conformance-kind"
	if err := os.MkdirAll(filepath.Join(root, kind), 0o755); err != nil {
		return Rendered{}, err
	}
	if err := os.WriteFile(filepath.Join(root, kind, "kustomization.yaml"), []byte(kindOverlay), 0o644); err != nil {
		return Rendered{}, err
	}
	out, err := kustomize(disk, root, kind)
	if err != nil {
		return Rendered{}, err
	}
	if args, image, err = container(out); err != nil {
		return Rendered{}, err
	}
	if !slices.Contains(args, InsecureTLS) {
		return Rendered{}, fmt.Errorf("the %s patch left the metrics-server container's args without it: %v", InsecureTLS, args)
	}
	return Rendered{Manifest: out, Image: image, Added: []string{InsecureTLS}}, nil
}

// kindOverlay is the release overlay plus InsecureTLS: an overlay of
// upstream's, as a user writes one.
const kindOverlay = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- ../release
patches:
- target:
    group: apps
    version: v1
    kind: Deployment
    name: metrics-server
    namespace: kube-system
  patch: |
    - op: add
      path: /spec/template/spec/containers/0/args/-
      value: ` + InsecureTLS + `
`

// onDisk copies dir of fsys into a new temporary directory (the module
// cache is read-only, and an overlay is added beside upstream's; kyaml's
// in-memory file system refuses upstream's directory names, such as
// high-availability-1.21+), returned with its removal.
func onDisk(fsys fs.FS, dir string) (filesys.FileSystem, string, func(), error) {
	root, err := os.MkdirTemp("", "metrics-server-")
	if err != nil {
		return nil, "", nil, err
	}
	done := func() { _ = os.RemoveAll(root) }
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(root, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		done()
		return nil, "", nil, fmt.Errorf("read the module's %s: %w", dir, err)
	}
	return filesys.MakeFsOnDisk(), root, done, nil
}

// kustomize builds the kustomization at root/dir as kubectl kustomize does.
func kustomize(disk filesys.FileSystem, root, dir string) (string, error) {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy // kubectl kustomize's default order
	m, err := krusty.MakeKustomizer(opts).Run(disk, filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return "", fmt.Errorf("kustomize %s: %w", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		return "", fmt.Errorf("kustomize %s: %w", dir, err)
	}
	return string(out), nil
}

// container is the metrics-server container's args and image in a
// rendered manifest.
func container(manifest string) ([]string, string, error) {
	for _, doc := range strings.Split(manifest, "\n---\n") {
		var d struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name  string   `json:"name"`
							Image string   `json:"image"`
							Args  []string `json:"args"`
						} `json:"containers"`
					} `json:"spec"`
				} `json:"template"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal([]byte(doc), &d); err != nil || d.Kind != "Deployment" || d.Metadata.Name != Deployment {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name == Deployment {
				return c.Args, c.Image, nil
			}
		}
	}
	return nil, "", errors.New("no Deployment " + Deployment + " with a container " + Deployment)
}

// Manifests renders version's manifests (Render) from its module zip,
// through the module proxy in either mode, and says where they came from:
// the module, its zip's hash, the overlay and the flags added.
func Manifests(ctx context.Context, cat *catalog.Catalog, version string) (Rendered, string, error) {
	comp, err := cat.Component(Component)
	if err != nil {
		return Rendered{}, "", err
	}
	m, err := sources.DownloadModule(ctx, comp.Module, version)
	if err != nil {
		return Rendered{}, "", err
	}
	r, err := Render(os.DirFS(m.Dir))
	if err != nil {
		return Rendered{}, "", fmt.Errorf("%s@%s: %w", comp.Module, version, err)
	}
	from := fmt.Sprintf("%s@%s (module zip %s): %s, as kubectl kustomize renders it (the release's components.yaml)", comp.Module, version, m.Sum, Release)
	if len(r.Added) > 0 {
		from += ", plus " + strings.Join(r.Added, " ")
	}
	return r, from, nil
}

// Parts splits the manifest into the APIService and the rest (the
// Deployment, its Service, its RBAC), in the manifest's order: the
// APIService is applied once metrics-server's Service has a ready backend.
// Applied together, the API server's availability check can connect to the
// new Service's ClusterIP before kube-proxy has its rule, past the node, and
// keep that connection: run 20261128-084652's APIService stayed
// FailedDiscoveryCheck, "bad status from https://10.96.245.41:443/...: 404",
// its Pod ready, the API server's connection to the ClusterIP in the node's
// conntrack table without the NAT to the Pod (a reply from the ClusterIP
// itself), and a new Pod or APIService did not change it.
func (r Rendered) Parts() (rest, apiService string) {
	var others, services []string
	for _, doc := range strings.Split(r.Manifest, "\n---\n") {
		var d struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &d); err == nil && d.Kind == "APIService" {
			services = append(services, strings.TrimSpace(doc)+"\n")
			continue
		}
		others = append(others, strings.TrimSpace(doc)+"\n")
	}
	return strings.Join(others, "---\n"), strings.Join(services, "---\n")
}
