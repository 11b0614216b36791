package metricsserver

import (
	"context"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/sources"
)

func TestParse(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	comp, err := cat.Component(Component)
	if err != nil {
		t.Fatal(err)
	}
	pinned := comp.Versions[0]
	for _, c := range []struct {
		value, want, err string
	}{
		{value: "", want: Component + " " + pinned},
		{value: pinned, want: Component + " " + pinned},
		{value: "none", want: "no metrics-server (METRICS=none)"},
		{value: "v0.0.1", err: `METRICS "v0.0.1": want none (no metrics-server) or a metrics-server version the catalog pins (` + pinned + `); empty: metrics-server ` + pinned},
		{value: "off", err: `METRICS "off": want none`},
	} {
		s, err := Parse(c.value, cat)
		switch {
		case c.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("Parse(%q): error %v, want one starting %q", c.value, err, c.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse(%q): the error is not one line: %q", c.value, err)
			}
		case err != nil:
			t.Errorf("Parse(%q): %v", c.value, err)
		case s.String() != c.want:
			t.Errorf("Parse(%q) = %q, want %q", c.value, s, c.want)
		}
	}
}

// module is the shape of metrics-server's manifests/ (v0.9.0's, cut down):
// a base with the Deployment, the release component renaming its image, the
// release overlay.
func module(args string) fstest.MapFS {
	return fstest.MapFS{
		"manifests/base/kustomization.yaml": {Data: []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncommonLabels:\n  k8s-app: metrics-server\nresources:\n- deployment.yaml\n")},
		"manifests/base/deployment.yaml": {Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: metrics-server
  namespace: kube-system
spec:
  template:
    spec:
      containers:
      - name: metrics-server
        image: gcr.io/k8s-staging-metrics-server/metrics-server:master
        args:
` + args)},
		"manifests/components/release/kustomization.yaml": {Data: []byte(`apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
images:
- name: gcr.io/k8s-staging-metrics-server/metrics-server
  newName: registry.k8s.io/metrics-server/metrics-server
  newTag: v9.9.9
`)},
		"manifests/overlays/release/kustomization.yaml": {Data: []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../../base\ncomponents:\n- ../../components/release\n")},
	}
}

func TestRender(t *testing.T) {
	r, err := Render(module("          - --cert-dir=/tmp\n          - --secure-port=10250\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Image != "registry.k8s.io/metrics-server/metrics-server:v9.9.9" {
		t.Errorf("image %q, want the release component's name", r.Image)
	}
	if strings.Join(r.Added, " ") != InsecureTLS {
		t.Errorf("added %v, want %s", r.Added, InsecureTLS)
	}
	// upstream's args kept, in order, the flag after them; the labels of the base
	want := "        - --cert-dir=/tmp\n        - --secure-port=10250\n        - --kubelet-insecure-tls\n"
	if !strings.Contains(r.Manifest, want) || !strings.Contains(r.Manifest, "k8s-app: metrics-server") {
		t.Errorf("manifest:\n%s\nwant the args\n%s", r.Manifest, want)
	}

	// the APIService apart from the rest
	withAPI := module("          - --cert-dir=/tmp\n")
	withAPI["manifests/base/apiservice.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1beta1.metrics.k8s.io\nspec:\n  group: metrics.k8s.io\n  version: v1beta1\n")}
	withAPI["manifests/base/kustomization.yaml"].Data = []byte(strings.Replace(string(withAPI["manifests/base/kustomization.yaml"].Data), "resources:\n", "resources:\n- apiservice.yaml\n", 1))
	r2, err := Render(withAPI)
	if err != nil {
		t.Fatal(err)
	}
	rest, api := r2.Parts()
	if strings.Contains(rest, "kind: APIService") || !strings.Contains(rest, "kind: Deployment") || !strings.Contains(api, "kind: APIService") || strings.Contains(api, "kind: Deployment") {
		t.Errorf("parts:\n%s\n=== and ===\n%s", rest, api)
	}

	// a release that has the flag already is taken as it is
	r, err = Render(module("          - --kubelet-insecure-tls\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Added) > 0 || strings.Count(r.Manifest, InsecureTLS) != 1 {
		t.Errorf("added %v to a release that has %s:\n%s", r.Added, InsecureTLS, r.Manifest)
	}

	// no such Deployment: said
	bad := module("          - --cert-dir=/tmp\n")
	bad["manifests/base/deployment.yaml"].Data = []byte(strings.Replace(string(bad["manifests/base/deployment.yaml"].Data), "name: metrics-server\n  namespace", "name: other\n  namespace", 1))
	if _, err := Render(bad); err == nil || !strings.Contains(err.Error(), "no Deployment metrics-server") {
		t.Errorf("a release without the Deployment: %v", err)
	}
}

// TestRenderModule renders the catalog's metrics-server from its module zip
// (the module proxy, or the module cache): not in -short.
func TestRenderModule(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the module zip")
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("", cat)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := sources.ModuleDir(context.Background(), "sigs.k8s.io/metrics-server", s.Version)
	if err != nil {
		t.Skipf("the module zip: %v", err)
	}
	r, err := Render(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	if r.Image != "registry.k8s.io/metrics-server/metrics-server:"+s.Version {
		t.Errorf("image %q", r.Image)
	}
	for _, kind := range []string{"kind: APIService", "kind: Service\n", "kind: ServiceAccount", "kind: ClusterRoleBinding", "name: " + APIService, InsecureTLS} {
		if !strings.Contains(r.Manifest, kind) {
			t.Errorf("no %q in the rendered manifest", kind)
		}
	}
	t.Logf("added %v:\n%s", r.Added, r.Manifest)
}
