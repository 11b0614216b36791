package inplace

import (
	"slices"
	"testing"
)

// The webhook names a blocked wait's answer quotes, as the check writes it
// (a Deployment's condition, JSON-quoted) and as an event says it (raw): run
// 20261128-052317's verdict.
func TestNamedWebhook(t *testing.T) {
	seen := `deployment argocd/argocd-applicationset-controller not up to date (0 of 1 updated, 1 available, 1 in all), its Pods rejected: "Internal error occurred: failed calling webhook \"pods.blocking-webhook.conformance.gitops.io\": failed to call webhook"; statefulset argocd/argocd-application-controller: create Pod argocd-application-controller-0 failed error: admission webhook "deny.example.com" denied the request`
	var got []string
	for _, m := range namedWebhook.FindAllStringSubmatch(seen, -1) {
		got = append(got, m[1])
	}
	want := []string{"pods.blocking-webhook.conformance.gitops.io", "deny.example.com"}
	if !slices.Equal(got, want) {
		t.Errorf("named %q, want %q", got, want)
	}
}
