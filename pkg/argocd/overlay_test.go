package argocd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A team's overlay names upstream's install manifests by URL, remote base
// or a local copy; the check finds those entries and puts a release's own
// in their place, the rest kept. One that names none is one line.
func TestOverlay(t *testing.T) {
	o, err := ReadOverlay("../../suites/upgrade-check/overlay")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Entries) != 1 || !strings.Contains(o.Entries[0], "argoproj/argo-cd/v2.14.11/manifests/install.yaml") {
		t.Errorf("entries %q", o.Entries)
	}
	dir := t.TempDir()
	k := "resources:\n- github.com/argoproj/argo-cd//manifests/cluster-install?ref=v3.5.1\n- ingress.yaml\n- ha/namespace-install.yaml\n"
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err = ReadOverlay(dir); err != nil || len(o.Entries) != 2 {
		t.Fatalf("entries %q: %v", o.Entries, err)
	}
	out, err := o.inPlace([]byte(k))
	if err != nil || string(out) != "resources:\n- "+OverlayInstall+"\n- ingress.yaml\n" {
		t.Errorf("in place: %q %v", out, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [ingress.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadOverlay(dir); err == nil || !strings.Contains(err.Error(), "names no ArgoCD install manifests") {
		t.Errorf("an overlay of something else: %v", err)
	}
	if _, err := ReadOverlay(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no kustomization.yaml") {
		t.Errorf("an empty directory: %v", err)
	}
}
