package appstate

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/pkg/argocd"
)

func obj(kind, ns, name string, fields map[string]any) *unstructured.Unstructured {
	o := map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}}
	for k, v := range fields {
		o[k] = v
	}
	return &unstructured.Unstructured{Object: o}
}

func TestCompare(t *testing.T) {
	from := []*unstructured.Unstructured{
		obj("ConfigMap", "a", "same", map[string]any{"data": map[string]any{"k": "v"}}),
		obj("ConfigMap", "a", "changed", map[string]any{"data": map[string]any{"k": "v", "gone": "x"}}),
		obj("Secret", "a", "removed", nil),
	}
	to := []*unstructured.Unstructured{
		obj("ConfigMap", "a", "same", map[string]any{"data": map[string]any{"k": "v"}}),
		obj("ConfigMap", "a", "changed", map[string]any{"data": map[string]any{"k": "w", "new": []any{"1"}}}),
		obj("Service", "a", "added", nil),
	}
	var got []string
	for _, c := range Compare(from, to) {
		got = append(got, c.String())
	}
	want := []string{
		`ConfigMap a/changed: .data.gone: "x" -> (absent); .data.k: "v" -> "w"; .data.new: (absent) -> ["1"]`,
		"Secret a/removed: only in the old render",
		"Service a/added: only in the new render",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Compare:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestExplain(t *testing.T) {
	s := State{OutOfSync: []string{"admissionregistration.k8s.io/ValidatingWebhookConfiguration v"}}
	s.Explain([]argocd.Resource{
		{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration", Name: "v", Health: "Healthy",
			Target: map[string]any{"webhooks": []any{map[string]any{"name": "w", "rules": []any{"a"}}}},
			Live:   map[string]any{"webhooks": []any{map[string]any{"name": "w", "rules": []any{"b"}}}}},
		{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "d", Health: "Degraded", HealthMessage: "progress deadline exceeded"},
	})
	if got, want := strings.Join(healthLines(s.Unhealthy), "|"), "apps/Deployment ns/d: Degraded (progress deadline exceeded)"; got != want {
		t.Errorf("Unhealthy %q, want %q", got, want)
	}
	if got, want := strings.Join(s.Drift, "|"), "admissionregistration.k8s.io/ValidatingWebhookConfiguration v: differ .webhooks[0].rules[0]; missing none"; got != want {
		t.Errorf("Drift %q, want %q", got, want)
	}
}

// The status's fields as paths, a list's items as one; gone are those of
// the first the second lacks, but for conditions and messages.
func TestFields(t *testing.T) {
	status := map[string]any{"sync": map[string]any{"status": "Synced"}, "resources": []any{
		map[string]any{"name": "a", "health": map[string]any{"status": "Healthy"}},
		map[string]any{"name": "b", "health": map[string]any{"status": "Degraded", "message": "x"}}}}
	got := Fields(status)
	want := []string{"status.resources[].health.message", "status.resources[].health.status", "status.resources[].name", "status.sync.status"}
	if !slices.Equal(got, want) {
		t.Errorf("Fields = %q, want %q", got, want)
	}
	if gone := Gone(got, []string{"status.resources[].name", "status.sync.status"}); !slices.Equal(gone, []string{"status.resources[].health.status"}) {
		t.Errorf("Gone = %q", gone)
	}
	empty := Fields(map[string]any{"summary": map[string]any{}, "history": []any{}})
	if gone := Gone(empty, Fields(map[string]any{"summary": map[string]any{"isAppOfApps": true}})); !slices.Equal(gone, []string{"status.history[]"}) {
		t.Errorf("Gone(an empty object filled, an empty list gone) = %q", gone)
	}
}
