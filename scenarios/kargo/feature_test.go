package kargo_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/scenarios/kargo"
	"github.com/gitops-conformance/suite/suites"
)

// Every cell of the matrix builds its feature (both modes' steps are built;
// the mode picks one when the cell runs), and every variant name is one the
// scenario knows.
func TestEveryCellBuilds(t *testing.T) {
	data, err := suites.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	cells, err := data.Plan(cat, matrix.Selection{Scenarios: []string{"kargo-argocd"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) < 6 {
		t.Fatalf("only %d kargo-argocd cells", len(cells))
	}
	for _, c := range cells {
		if v, ok := kargo.VariantOf(c.Variant.Name); !ok || c.Variant.Name != "bug" && !v.OnProject && !v.OnNamespace {
			t.Errorf("variant %s: unknown to the scenario, or a mitigation with no annotation", c.Variant.Name)
		}
		f := kargo.Feature(c)
		if len(f.Steps) < 10 {
			t.Errorf("%s: %d steps", c.Report().ID(), len(f.Steps))
		}
	}
}

// A staged variant stops its actor before the deletion and starts it again
// only after the other actor's part is seen done, before the verdict.
func TestHeldActorBracketsTheDeletion(t *testing.T) {
	data, err := suites.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	for variant, want := range map[string][]string{
		"keep-namespace-foreground-kargo-late": {"kargo-management-controller stopped", "delete projects", "the garbage collector finished",
			"before Kargo came back", "kargo-management-controller started again", "the deletion settled"},
		"keep-namespace-foreground-gc-late": {"kube-controller-manager stopped", "delete projects", "Kargo finished", "before the garbage collector came back",
			"kube-controller-manager started again", "the deletion settled"},
		"keep-namespace-foreground": {"delete projects", "the deletion settled"},
	} {
		cells, err := data.Plan(cat, matrix.Selection{Scenarios: []string{"kargo-argocd"}, Variants: []string{variant}})
		if err != nil || len(cells) == 0 {
			t.Fatalf("%s: %d cells, %v", variant, len(cells), err)
		}
		var names []string // the wanted parts, in the order of the steps that name them
		for _, s := range kargo.Feature(cells[0]).Steps {
			for _, w := range want {
				if strings.Contains(s.Name(), w) {
					names = append(names, w)
				}
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: steps in order %s, want %s", variant, strings.Join(names, ", "), strings.Join(want, ", "))
		}
	}
}
