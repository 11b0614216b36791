package kube

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What kubectl prints decides between "not there", "rejected" and "could not
// tell": a read the API server did not answer is never taken for either.
func TestKubectlErrorsAreThreeState(t *testing.T) {
	for _, tc := range []struct {
		out                string
		notFound, answered bool
	}{
		{`Error from server (NotFound): namespaces "kargo-team-a" not found`, true, true},
		{`error: the server doesn't have a resource type "projects"`, true, false},
		{`Error from server (BadRequest): admission webhook "config.webhook.serving.knative.dev" denied the request`, false, true},
		{`Error from server (InternalError): Internal error occurred: failed calling webhook "mpod.kb.io": no endpoints available`, false, true},
		{`The connection to the server 127.0.0.1:44547 was refused - did you specify the right host or port?`, false, false},
		{`Unable to connect to the server: net/http: TLS handshake timeout`, false, false},
		{`Error from server (Timeout): the server was unable to return a response in the time allotted`, false, false},
		{`Error from server (ServiceUnavailable): etcdserver: request timed out`, false, false},
		{`Error from server: etcdserver: leader changed`, false, false},
	} {
		err := errors.New(tc.out)
		if got := NotFound(err); got != tc.notFound {
			t.Errorf("NotFound(%q) = %v", tc.out, got)
		}
		if got := Answered(err); got != tc.answered {
			t.Errorf("Answered(%q) = %v", tc.out, got)
		}
	}
	if NotFound(nil) || !Answered(nil) {
		t.Error("no error: found, and answered")
	}
}

// client-go's errors: the API server's status decides, and a call that got
// no status (a refused connection) could not tell.
func TestClientErrorsAreThreeState(t *testing.T) {
	gr := schema.GroupResource{Resource: "namespaces"}
	for _, tc := range []struct {
		name               string
		err                error
		notFound, answered bool
	}{
		{"not found", apierrors.NewNotFound(gr, "kargo-team-a"), true, true},
		{"unserved type", fmt.Errorf("%w %q", ErrNoResourceType, "projects"), true, false},
		{"no match", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Kind: "Project"}}, true, false},
		{"denied", apierrors.NewBadRequest(`admission webhook "x" denied the request`), false, true},
		{"webhook down, failurePolicy Fail", apierrors.NewInternalError(errors.New(`failed calling webhook "mpod.kb.io"`)), false, true},
		{"etcd", apierrors.NewInternalError(errors.New("etcdserver: request timed out")), false, false},
		{"unavailable", apierrors.NewServiceUnavailable("etcdserver: leader changed"), false, false},
		{"timeout", apierrors.NewTimeoutError("slow", 1), false, false},
		{"throttled", apierrors.NewTooManyRequests("later", 1), false, false},
		{"refused", &url.Error{Op: "Get", URL: "https://127.0.0.1:6443", Err: syscall.ECONNREFUSED}, false, false},
		{"deadline", context.DeadlineExceeded, false, false},
	} {
		if got := NotFound(tc.err); got != tc.notFound {
			t.Errorf("%s: NotFound = %v", tc.name, got)
		}
		if got := Answered(tc.err); got != tc.answered {
			t.Errorf("%s: Answered = %v", tc.name, got)
		}
	}
}

// JSONPath prints as `kubectl get -o jsonpath=` does.
func TestJSONPath(t *testing.T) {
	obj := map[string]any{"metadata": map[string]any{"name": "a", "finalizers": []any{"f1", "f2"},
		"ownerReferences": []any{map[string]any{"kind": "Project", "name": "a"}}}, "status": map[string]any{"phase": "Active"}}
	for template, want := range map[string]string{
		"{.status.phase}":                  "Active",
		"{.metadata.finalizers}":           `["f1","f2"]`,
		"{.metadata.ownerReferences}":      `[{"kind":"Project","name":"a"}]`,
		"{.metadata.deletionTimestamp}":    "",
		"{.metadata.name}={.status.phase}": "a=Active",
	} {
		got, err := JSONPath(obj, template)
		if err != nil || got != want {
			t.Errorf("JSONPath(%s) = %q, %v; want %q", template, got, err, want)
		}
	}
	if _, err := JSONPath(obj, "{.status.phase"); err == nil {
		t.Error("a malformed template must be an error")
	}
}

func TestDecode(t *testing.T) {
	objs, err := Decode("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n# empty\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n")
	if err != nil || len(objs) != 2 || objs[1].GetKind() != "Namespace" {
		t.Fatalf("Decode: %v %v", objs, err)
	}
}

// A kind installed since discovery was read (a CRD the cell installed) is
// found once discovery is read again, not taken for an unknown kind.
func TestMappingReadsDiscoveryAgainForANewKind(t *testing.T) {
	m := meta.NewDefaultRESTMapper(nil)
	gvk := schema.GroupVersionKind{Group: "apps.kruise.io", Version: "v1alpha1", Kind: "CloneSet"}
	c := &Client{Mapper: m, reset: func() { m.Add(gvk, meta.RESTScopeNamespace) }}
	if _, err := c.mapping(gvk); err != nil {
		t.Fatalf("mapping after a reset: %v", err)
	}
	c = &Client{Mapper: meta.NewDefaultRESTMapper(nil), reset: func() {}}
	if _, err := c.mapping(gvk); !meta.IsNoMatchError(err) {
		t.Errorf("a kind still unknown: %v, want a no-match error", err)
	}
}
