package argocd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// OverlayInstall is the file an overlay's copy holds a release's
// install.yaml in, in place of the entries that named ArgoCD's manifests.
const OverlayInstall = "argocd-install.yaml"

// Overlay is a team's kustomize overlay of ArgoCD's install manifests: a
// directory whose kustomization names them among its resources (a local
// install.yaml, or upstream's URL or remote base at a tag), with the
// patches, config and images the team adds.
type Overlay struct {
	Dir string
	// File is the kustomization's file name in Dir.
	File string
	// Entries are the resources entries that name ArgoCD's install
	// manifests; the check puts the release's own in their place.
	Entries []string
}

// kustomizationFiles are the names kustomize reads a kustomization from.
var kustomizationFiles = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// ReadOverlay reads the overlay in dir: one line saying what is wrong when
// it is not a kustomization or names no ArgoCD install manifests.
func ReadOverlay(dir string) (Overlay, error) {
	o := Overlay{Dir: dir}
	var data []byte
	for _, name := range kustomizationFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err == nil {
			o.File, data = name, b
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return o, err
		}
	}
	if o.File == "" {
		return o, fmt.Errorf("%s holds no kustomization.yaml", dir)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return o, fmt.Errorf("%s: %w", filepath.Join(dir, o.File), err)
	}
	for _, r := range k.Resources {
		if namesInstall(r) {
			o.Entries = append(o.Entries, r)
		}
	}
	if len(o.Entries) == 0 {
		return o, fmt.Errorf("%s names no ArgoCD install manifests among its resources (an entry ending in install.yaml, or argoproj/argo-cd's manifests by URL or remote base): the check puts each release's own in their place", filepath.Join(dir, o.File))
	}
	return o, nil
}

// namesInstall says whether a resources entry names ArgoCD's install
// manifests: install.yaml, namespace-install.yaml, core-install.yaml (a
// local copy or upstream's URL), or argo-cd's manifests as a remote base.
func namesInstall(entry string) bool {
	return strings.HasSuffix(entry, "install.yaml") || strings.Contains(entry, "argoproj/argo-cd")
}

// Build renders the overlay over a release's install.yaml (manifest): a
// copy of the overlay under work in which the release's manifests take the
// place of Entries, built with `kubectl kustomize`. It returns the built
// manifest's path; an overlay that does not build over this release's
// manifests (a patch whose target is gone) is an *ApplyError of stage
// "build", quoting kustomize.
func (o Overlay) Build(ctx context.Context, kubectl kube.Kubectl, rel catalog.Release, manifest, work string) (string, error) {
	dir := filepath.Join(work, "overlay")
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.CopyFS(dir, os.DirFS(o.Dir)); err != nil {
		return "", fmt.Errorf("copy overlay %s: %w", o.Dir, err)
	}
	install, err := os.ReadFile(manifest)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, OverlayInstall), install, 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, o.File)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	out, err := o.inPlace(data)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return "", err
	}
	built, err := kubectl.Run(ctx, "kustomize", dir)
	if err != nil {
		return "", &ApplyError{Release: rel, Method: Kustomize, Stage: "build", Err: err, Refusals: refusals(err)}
	}
	result := filepath.Join(work, "overlay-built-"+rel.String()+".yaml")
	return result, os.WriteFile(result, []byte(built), 0o644)
}

// inPlace is the kustomization (data) with OverlayInstall first among its
// resources in the place of Entries.
func (o Overlay) inPlace(data []byte) ([]byte, error) {
	k := map[string]any{}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, err
	}
	resources, _ := k["resources"].([]any)
	var kept []any
	for _, r := range resources {
		if s, ok := r.(string); ok && slices.Contains(o.Entries, s) {
			continue
		}
		kept = append(kept, r)
	}
	k["resources"] = append([]any{OverlayInstall}, kept...)
	return yaml.Marshal(k)
}
