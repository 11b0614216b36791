package kargo

import (
	"context"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

func TestVariants(t *testing.T) {
	if v := VariantOf("bug"); v.OnProject || v.OnNamespace || len(v.DeleteArgs) != 0 {
		t.Fatalf("bug must carry no mitigation and delete the kubectl way: %+v", v)
	}
	if v := VariantOf("keep-namespace-argocd-prune"); !v.OnProject || !slices.Equal(v.DeleteArgs, []string{"--cascade=foreground"}) {
		t.Fatalf("argocd-prune must delete in the foreground: %+v", v)
	}
	if v := VariantOf("keep-namespace-on-namespace"); v.OnProject || !v.OnNamespace {
		t.Fatalf("on-namespace: %+v", v)
	}
}

func TestManifests(t *testing.T) {
	for _, keep := range []bool{false, true} {
		for _, doc := range append(strings.Split(TeamNamespace(keep), "---\n"), Project(keep)) {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				t.Fatalf("invalid YAML (keep=%v): %v\n%s", keep, err, doc)
			}
			meta := obj["metadata"].(map[string]any)
			_, annotated := meta["annotations"]
			if (obj["kind"] == "Namespace" || obj["kind"] == "Project") && annotated != keep {
				t.Fatalf("%s annotated=%v, want %v", obj["kind"], annotated, keep)
			}
		}
	}
	if !strings.Contains(TeamNamespace(false), `kargo.akuity.io/project: "true"`) {
		t.Fatal("the namespace must carry the adoption label")
	}
}

func TestAdminValuesAreFreshAndHashed(t *testing.T) {
	a, err := AdminValues(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := AdminValues(context.Background())
	ha := a["api"].(map[string]any)["adminAccount"].(map[string]any)
	hb := b["api"].(map[string]any)["adminAccount"].(map[string]any)
	if ha["tokenSigningKey"] == hb["tokenSigningKey"] || !strings.HasPrefix(ha["passwordHash"].(string), "$2a$") {
		t.Fatalf("values must be generated per run and the password bcrypt-hashed: %v", ha["passwordHash"])
	}
}

func TestRelease(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	src, err := SourcesOf(cat)
	if err != nil || src.Chart == "" || !strings.Contains(src.CertManagerURL, "cert-manager") || strings.Contains(src.CertManagerURL, "{version}") {
		t.Fatalf("sources: %+v %v", src, err)
	}
	if r := Release(src.Chart, "v1.9.3"); r.Version != "1.9.3" || r.Chart != src.Chart {
		t.Fatalf("release = %+v", r)
	}
}
