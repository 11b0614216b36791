package appcell

import (
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/step"
)

func names(steps []step.Step) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Name())
	}
	return strings.Join(out, "|")
}

// The namespace made beforehand is made again by its own field, not by a
// step's name: one ArgoCD creates is only deleted at the end, one the
// suite's cluster needs is left alone.
func TestNamespaceSteps(t *testing.T) {
	made := Namespace{Name: "team"}
	if got := names(made.Steps()); got != "apply namespace team" {
		t.Errorf("made beforehand: %q", got)
	}
	if got := names(made.Again()); got != "apply namespace team again" {
		t.Errorf("made again: %q", got)
	}
	created := Namespace{Name: "team", ArgoCDCreates: true}
	if got := names(created.Steps()); !strings.Contains(got, "namespace") || strings.HasPrefix(got, "apply") {
		t.Errorf("ArgoCD creates it: %q", got)
	}
	if len(created.Again()) != 0 {
		t.Errorf("ArgoCD creates it again itself: %q", names(created.Again()))
	}
	for _, n := range []Namespace{{}, {Name: "kube-system"}, {Name: "argocd", ArgoCDCreates: true}} {
		if len(n.Steps())+len(n.Again()) != 0 {
			t.Errorf("%+v: left alone, got %q %q", n, names(n.Steps()), names(n.Again()))
		}
	}
}
