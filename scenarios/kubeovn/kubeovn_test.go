package kubeovn

import (
	"strings"
	"testing"
)

func TestApplicationPerVariant(t *testing.T) {
	if a := Application("bug"); len(a.Spec.IgnoreDifferences) != 0 || a.Annotations != nil {
		t.Fatalf("bug must carry no mitigation: %+v", a)
	}
	a := Application("ignore-differences")
	if len(a.Spec.IgnoreDifferences) != 1 || a.Spec.IgnoreDifferences[0].Name != crd || len(a.Spec.IgnoreDifferences[0].JQPathExpressions) != 2 {
		t.Fatalf("ignore-differences: %+v", a.Spec.IgnoreDifferences)
	}
	if Application("server-side-diff").Annotations["argocd.argoproj.io/compare-options"] != "ServerSideDiff=true" {
		t.Fatal("server-side-diff must set the compare option")
	}
	if !strings.Contains(IgnoreYAML, `"x-kubernetes-patch-merge-key"`) || !strings.HasPrefix(IgnoreYAML, "jqPathExpressions:\n- '") {
		t.Fatalf("argocd-cm rule: %s", IgnoreYAML)
	}
}
