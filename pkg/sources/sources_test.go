package sources

import (
	"errors"
	"testing"
)

func TestDocument(t *testing.T) {
	m := []byte("apiVersion: v1\nkind: A\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: B\nmetadata:\n  name: two\nspec: {}\n")
	doc, err := Document(m, "two")
	if err != nil || doc != "apiVersion: v1\nkind: B\nmetadata:\n  name: two\nspec: {}\n" {
		t.Fatalf("Document = %q, %v", doc, err)
	}
	if _, err := Document(m, "three"); err == nil {
		t.Fatal("missing document must be an error")
	}
}

func TestRequiredVersion(t *testing.T) {
	gomod := []byte(`module github.com/argoproj/argo-cd/v2

require (
	github.com/argoproj/gitops-engine v0.7.1-0.20250207220447-65db274b8d73
	github.com/argoproj/pkg v0.13.7-0.20250305113207-cbc37dc61de5 // indirect
)

replace github.com/golang/protobuf => github.com/golang/protobuf v1.5.4
`)
	if v, err := RequiredVersion(gomod, "github.com/argoproj/gitops-engine"); err != nil || v != "v0.7.1-0.20250207220447-65db274b8d73" {
		t.Errorf("required: %q %v", v, err)
	}
	if v, err := RequiredVersion(gomod, "github.com/golang/protobuf"); err != nil || v != "github.com/golang/protobuf v1.5.4" {
		t.Errorf("replaced: %q %v", v, err)
	}
	if _, err := RequiredVersion(gomod, "k8s.io/api"); err == nil {
		t.Error("a module go.mod does not require must be an error")
	}
}

// The proxy's refusal and a version never published are answers a retry
// would not change; a lookup that got no answer is not.
func TestRefusal(t *testing.T) {
	for msg, want := range map[string]string{
		"reading https://proxy.golang.org/github.com/argoproj/argo-cd/v3/@v/v3.3.11.mod: 403 Forbidden": "403 Forbidden",
		"reading https://proxy.golang.org/x/@v/v9.9.9.info: 404 Not Found":                              "404 Not Found",
		"github.com/x@v1.2.3: unknown revision v1.2.3":                                                  "unknown revision",
		"dial tcp: lookup proxy.golang.org: no such host":                                               "",
	} {
		if got := Refusal(errors.New(msg)); got != want {
			t.Errorf("Refusal(%q) = %q, want %q", msg, got, want)
		}
	}
	if Refusal(nil) != "" || NotPublished(errors.New("403 Forbidden")) || !NotPublished(errors.New("410 Gone")) {
		t.Error("nil, 403 or 410 misread")
	}
}

func TestNeedsGo(t *testing.T) {
	for msg, want := range map[string]string{
		"github.com/argoproj/argo-cd/v3@v3.6.1 requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)": "1.27.0",
		"m@v1.0.0 requires go >= 1.27 (running go 1.26.8; GOTOOLCHAIN=local)":                                "1.27",
		"reading https://proxy.golang.org/m/@v/v1.0.0.info: 403 Forbidden":                                   "",
	} {
		if got := NeedsGo(msg); got != want {
			t.Errorf("NeedsGo(%q) = %q, want %q", msg, got, want)
		}
	}
}
