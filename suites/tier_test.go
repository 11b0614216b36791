package suites

import (
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// Every scenario has a quick tier, with its why, and each of its cells
// rests on a measured expectation offline: make e2e's default answers from
// what a cluster showed, never an unmeasured cell.
func TestEveryScenarioHasAMeasuredQuickTier(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, err := Matrix()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range data.Scenarios {
		if s.Quick == nil || s.Quick.Why == "" {
			t.Errorf("%s: no quick tier with its why", s.Name)
			continue
		}
		cells, err := data.Plan(cat, matrix.Selection{Scenarios: []string{s.Name}, Tier: matrix.TierQuick})
		if err != nil {
			t.Fatal(err)
		}
		variants := map[string]bool{}
		for _, c := range cells {
			variants[c.Variant.Name] = true
			if o, why := data.Expected(c, true); o == "" {
				t.Errorf("%s: quick cell %s has no measured expectation offline (%s)", s.Name, c.Report().ID(), why)
			}
		}
		for _, v := range s.Variants {
			if !variants[v.Name] {
				t.Errorf("%s: variant %s is not in the quick tier", s.Name, v.Name)
			}
		}
	}
}
