package lifecycle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

func TestKindConfig(t *testing.T) {
	r := &Run{Repo: "../..", CacheDir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(r.CacheDir, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	read := func(built bool) map[string]any {
		t.Helper()
		path, err := r.kindConfig(built)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]any
		if err := yaml.UnmarshalStrict(data, &c); err != nil {
			t.Fatalf("%s: %v\n%s", path, err, data)
		}
		return c
	}
	cni := func(c map[string]any) any { return c["networking"].(map[string]any)["disableDefaultCNI"] }
	if c := read(true); cni(c) != true || c["containerdConfigPatches"] != nil {
		t.Errorf("built node, no mirror: %v", c)
	}
	if c := read(false); cni(c) != false {
		t.Errorf("kindest/node: kind's CNI must be on: %v", c)
	}
	r.Mirror = &registry.Mirror{Scheme: "http", Host: "172.18.0.5:5000"}
	c := read(true)
	patches, _ := c["containerdConfigPatches"].([]any)
	if cni(c) != true || len(patches) != 1 || !strings.Contains(patches[0].(string), `config_path = "/etc/containerd/certs.d"`) {
		t.Errorf("built node with a mirror: %v", c)
	}
	r.Mirror = nil
	r.Kubernetes = catalog.KubeVersion{Version: "v1.35.4", OnlineNodeImage: "kindest/node:v1.35.8@sha256:07b2"}
	c = read(false)
	patches, _ = c["kubeadmConfigPatches"].([]any)
	if cgroupV1() != (len(patches) == 1 && strings.Contains(patches[0].(string), "failCgroupV1: false")) {
		t.Errorf("kindest/node v1.35.8 on a cgroup v1 host (%v): kubeadmConfigPatches %v", cgroupV1(), patches)
	}
	r.Kubernetes = catalog.KubeVersion{Version: "v1.33.13", OnlineNodeImage: "kindest/node:v1.33.12@sha256:3f5c"}
	if c := read(false); c["kubeadmConfigPatches"] != nil {
		t.Errorf("a 1.33 kubelet knows no failCgroupV1 default to undo: %v", c["kubeadmConfigPatches"])
	}
}
