package example

import (
	"context"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// The example builds a feature per variant that ends in that variant's
// verdict, on a fixture chart that carries the keys the bug is about.
func TestFeatureEndsInEachVariantsVerdict(t *testing.T) {
	for variant, last := range map[string]string{"bug": "application argocd/example sync status OutOfSync", "ignore-differences": "application argocd/example sync status Synced"} {
		c := matrix.Cell{Scenario: matrix.Scenario{Name: "example-argocd"}, ArgoCD: catalog.MustRelease("v2.14.11"),
			Variant: matrix.Variant{Name: variant, Mitigates: variant != matrix.Bug}}
		steps := Feature(c).Steps
		if len(steps) == 0 || steps[len(steps)-1].Name() != last {
			t.Errorf("%s: the last step must be the verdict %q", variant, last)
		}
	}
	files, err := fixture.Chart("patch-keys-crd", nil)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, content := range files {
		all.WriteString(content)
	}
	for _, key := range []string{"x-kubernetes-patch-merge-key", "x-kubernetes-patch-strategy"} {
		if !strings.Contains(all.String(), key) {
			t.Errorf("the fixture chart carries no %s: the example's bug is not there", key)
		}
	}
}
