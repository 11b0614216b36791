package kubeovn

import (
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

func render(t *testing.T, variant string) *v1alpha1.Application {
	t.Helper()
	a, err := Application(variant).Render()
	if err != nil {
		t.Fatalf("%s: %v", variant, err)
	}
	return a
}

func TestApplicationPerVariant(t *testing.T) {
	if a := render(t, "bug"); len(a.Spec.IgnoreDifferences) != 0 || a.Annotations != nil || a.Spec.Source.RepoURL == "" {
		t.Fatalf("bug must carry no mitigation: %+v", a)
	}
	a := render(t, "ignore-differences")
	if len(a.Spec.IgnoreDifferences) != 1 || a.Spec.IgnoreDifferences[0].Name != crd || len(a.Spec.IgnoreDifferences[0].JQPathExpressions) != 2 {
		t.Fatalf("ignore-differences: %+v", a.Spec.IgnoreDifferences)
	}
	if render(t, "server-side-diff").Annotations["argocd.argoproj.io/compare-options"] != "ServerSideDiff=true" {
		t.Fatal("server-side-diff must set the compare option")
	}
	if !strings.Contains(IgnoreYAML, `"x-kubernetes-patch-merge-key"`) || !strings.HasPrefix(IgnoreYAML, "jqPathExpressions:\n- '") {
		t.Fatalf("argocd-cm rule: %s", IgnoreYAML)
	}
}
