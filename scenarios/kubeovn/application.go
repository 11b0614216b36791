package kubeovn

import "github.com/gitops-conformance/suite/pkg/fixture"

// ignorePaths drop the two keys wherever they stand in the CRD's schema.
var ignorePaths = []string{
	`.spec.versions[].schema.openAPIV3Schema | .. | select(type == "object" and has("x-kubernetes-patch-strategy")) | ."x-kubernetes-patch-strategy"`,
	`.spec.versions[].schema.openAPIV3Schema | .. | select(type == "object" and has("x-kubernetes-patch-merge-key")) | ."x-kubernetes-patch-merge-key"`,
}

// IgnoreYAML is the argocd-cm form of the same ignore rule.
var IgnoreYAML = "jqPathExpressions:\n- '" + ignorePaths[0] + "'\n- '" + ignorePaths[1] + "'\n"

// Application is the Application for a variant (fixtures/charts/application).
func Application(variant string) fixture.App {
	values := map[string]any{"name": app}
	switch variant {
	case "ignore-differences":
		values["ignoreDifferences"] = []map[string]any{{"group": "apiextensions.k8s.io", "kind": "CustomResourceDefinition",
			"name": crd, "jqPathExpressions": ignorePaths}}
	case "server-side-diff":
		values["annotations"] = map[string]string{"argocd.argoproj.io/compare-options": "ServerSideDiff=true"}
	}
	return fixture.Application(values)
}
