package conform

import (
	"fmt"
	"slices"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// Scenario is the scenario make conform's cells belong to; each check is a
// variant of it. It is made at run time from the chart (Plan), never listed
// in suites/matrix.yaml: make matrix does not run it.
const Scenario = "conform"

// Clean is why a check is expected NOT_REPRODUCED when nothing else is said.
const Clean = "a chart is expected to pass every check (make conform)"

// Plan is the run's matrix data and code: the scenario conform with one
// variant per check, on the chart's version, each expected NOT_REPRODUCED
// (or as -expect says), and its feature. Without ARGOCD the cells run on the
// newest release of the catalog's default axis.
func (s *Spec) Plan(cat *catalog.Catalog) (*matrix.Data, runner.Scenarios, error) {
	axis, err := cat.Releases(cat.ArgoCD.Default)
	if err != nil {
		return nil, nil, err
	}
	if len(axis) == 0 {
		return nil, nil, fmt.Errorf("the catalog has no default ArgoCD axis")
	}
	newest := slices.MaxFunc(axis, catalog.Release.Compare)
	sc := matrix.Scenario{Name: Scenario, Component: s.Chart.Name, ArgoCD: []string{newest.String()}, UserChart: true, ReplayCommand: s.Command,
		Title:   "the bug classes of the scenarios, checked on a chart",
		Summary: fmt.Sprintf("Chart %s %s (%s) installed through ArgoCD as release %s into namespace %s, made beforehand; each check a bug class one of the scenarios reproduced.", s.Chart.Name, s.Chart.Version, s.Chart.Source, s.Release, s.Namespace)}
	d := &matrix.Data{}
	for _, name := range s.Checks {
		c, _ := lookup(name)
		sc.Variants = append(sc.Variants, matrix.Variant{Name: c.Name, Summary: c.Summary, ComponentVersion: s.Chart.Version})
		want, why := report.NotReproduced, Clean
		if o, ok := s.Expect[name]; ok {
			want, why = o, orDefault(s.ExpectWhy, "make conform -expect")
		}
		d.Expectations = append(d.Expectations, matrix.Expectation{Scenario: Scenario, Variant: name, Expected: want, Why: why})
	}
	d.Scenarios = []matrix.Scenario{sc}
	return d, runner.Scenarios{Scenario: {Feature: s.Feature, Variants: s.Checks}}, nil
}
