package inplace

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
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

// A refused upgrade says whether kubectl applied the rest all the same: run
// 20261128-105315's client-side apply of v3.3.14 over v3.2.6 refused the
// ApplicationSet CRD and applied every other object, v3.3.14's Deployments
// rolling out; a refusal with nothing else applied does not say so.
func TestRefusedWhy(t *testing.T) {
	crd := `The CustomResourceDefinition "applicationsets.argoproj.io" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes`
	to := catalog.MustRelease("v3.3.14")
	for _, tt := range []struct {
		applied int
		want    string
	}{
		{57, "the upgrade to v3.3.14 failed: the API server refused its manifests (kubectl apply -n argocd -f install.yaml): " + crd + "; kubectl applied 57 other objects all the same: ArgoCD is left part upgraded"},
		{0, "the upgrade to v3.3.14 failed: the API server refused its manifests (kubectl apply -n argocd -f install.yaml): " + crd},
	} {
		err := &argocd.ApplyError{Release: to, Method: argocd.ClientSide, Err: errors.New("exit status 1"), Refusals: []string{crd}, Applied: tt.applied}
		if got := refusedWhy(to, err); got != tt.want {
			t.Errorf("applied %d:\n got %q\nwant %q", tt.applied, got, tt.want)
		}
	}
	build := &argocd.ApplyError{Release: to, Method: argocd.Kustomize, Stage: "build", Err: errors.New("no matches for Id"), Applied: 3}
	if got := refusedWhy(to, build); !strings.Contains(got, "(nothing applied)") || strings.Contains(got, "part upgraded") {
		t.Errorf("an overlay that does not build: %q", got)
	}
}
