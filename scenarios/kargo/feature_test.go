package kargo_test

import (
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
		if v := kargo.VariantOf(c.Variant.Name); c.Variant.Name != "bug" && !v.OnProject && !v.OnNamespace {
			t.Errorf("variant %s: unknown to the scenario (it would run as bug)", c.Variant.Name)
		}
		f := kargo.Feature(c)
		if len(f.Steps()) < 10 {
			t.Errorf("%s: %d steps", c.Report().ID(), len(f.Steps()))
		}
	}
}
