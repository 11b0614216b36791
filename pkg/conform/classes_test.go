package conform

import (
	"slices"
	"testing"
)

func TestLookupCallsNameTheTemplateLines(t *testing.T) {
	files := map[string]string{
		"Chart.yaml":                   "name: c",
		"values.yaml":                  "# lookup \"v1\" in a comment of the values is no call",
		"templates/_helpers.tpl":       "{{- define \"x\" -}}\n{{- $ds := lookup \"apps/v1\" \"DaemonSet\" .ns \"ovs\" -}}\n{{- end -}}",
		"templates/secret.yaml":        "kind: Secret\n# lastLookupTime, a field's name\n{{- $s := lookup \"v1\" \"Secret\" .ns \"tls\" }}",
		"charts/sub/templates/cm.yaml": "{{ (lookup \"v1\" \"ConfigMap\" \"\" \"\").items }}",
		"templates/crd.yaml":           "description: a DNS lookup of the name",
	}
	got := lookupCalls(files)
	want := []string{"charts/sub/templates/cm.yaml:1", "templates/_helpers.tpl:2", "templates/secret.yaml:3"}
	if !slices.Equal(got, want) {
		t.Errorf("lookupCalls = %q, want %q", got, want)
	}
}

func TestFlattenNamesEveryLeafByPath(t *testing.T) {
	got := flatten(map[string]any{
		"spec": map[string]any{"updateStrategy": map[string]any{"type": "OnDelete"}, "ports": []any{map[string]any{"port": 443}}, "empty": map[string]any{}},
		"data": map[string]any{"cacert": "QUJD"},
	})
	want := map[string]string{".spec.updateStrategy.type": `"OnDelete"`, ".spec.ports[0].port": "443", ".spec.empty": "{}", ".data.cacert": `"QUJD"`}
	if len(got) != len(want) {
		t.Fatalf("flatten = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("flatten[%s] = %q, want %q", k, got[k], v)
		}
	}
}

// The messages ArgoCD's sync gives an object whose kind the cluster does
// not serve: v3.6.1's (run 20261129-081534) and gitops-engine's dry run's.
func TestMissingKindMessages(t *testing.T) {
	for _, m := range []string{
		`The Kubernetes API could not find hook-kind.gitops-conformance.io/EvictorConfig for requested resource hook-kind-missing/hook-kind-missing. Make sure the "EvictorConfig" CRD is installed on the destination cluster.`,
		"the server could not find the requested resource",
		`resource mapping not found for name: "x": no matches for kind "EvictorConfig" in version "v1"; ensure CRDs are installed first`,
	} {
		if !missingKind.MatchString(m) {
			t.Errorf("missingKind does not match %q", m)
		}
	}
	if missingKind.MatchString("one or more objects failed to apply, reason: admission webhook denied the request") {
		t.Error("missingKind matches a webhook's refusal")
	}
}

// ArgoCD's manifests API shows a Secret's data as pluses (run
// 20261129-083228): the lookup check cannot read it there.
func TestMaskedIsArgoCDsSecretData(t *testing.T) {
	if !masked.MatchString(`"++++++++"`) || masked.MatchString(`"LS0tLS1C"`) || masked.MatchString(`"+"x`) {
		t.Error("masked matches otherwise than ArgoCD's masked Secret data")
	}
}
