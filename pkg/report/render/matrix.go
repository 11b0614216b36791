package render

import (
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
)

// table is one scenario's matrix: a row per variant and component version, a
// column per ArgoCD release the scenario ran on (each scenario has its own
// axis, so one table for all would be mostly empty columns).
type table struct {
	Scenario, Upstream string
	Versions           []string
	Rows               []*row
}

type row struct {
	Variant, Component string
	Kubernetes         string         // set when the scenario ran on several versions
	Cells              []*report.Cell // one per Versions entry, nil where the cell did not run
}

// tables groups the cells by scenario, in the order they appear.
func tables(r *report.Report) []*table {
	var tables []*table
	byScenario := map[string]*table{}
	for i := range r.Cells {
		c := &r.Cells[i]
		t, ok := byScenario[c.Scenario]
		if !ok {
			t = &table{Scenario: c.Scenario}
			byScenario[c.Scenario] = t
			tables = append(tables, t)
		}
		if t.Upstream == "" {
			t.Upstream = c.Upstream
		}
		if !slices.Contains(t.Versions, c.ArgoCD) {
			t.Versions = append(t.Versions, c.ArgoCD)
		}
	}
	for _, t := range tables {
		slices.SortFunc(t.Versions, catalog.CompareTags)
		kubes := map[string]bool{}
		for i := range r.Cells {
			if r.Cells[i].Scenario == t.Scenario {
				kubes[r.Cells[i].Kubernetes] = true
			}
		}
		index := map[string]*row{}
		for i := range r.Cells {
			c := &r.Cells[i]
			if c.Scenario != t.Scenario {
				continue
			}
			key := c.Variant + "/" + c.ComponentVersion + "/" + c.Kubernetes
			rw, ok := index[key]
			if !ok {
				rw = &row{Variant: c.Variant, Component: strings.TrimSpace(c.Component + " " + c.ComponentVersion), Cells: make([]*report.Cell, len(t.Versions))}
				if len(kubes) > 1 {
					rw.Kubernetes = c.Kubernetes
				}
				index[key] = rw
				t.Rows = append(t.Rows, rw)
			}
			rw.Cells[slices.Index(t.Versions, c.ArgoCD)] = c
		}
	}
	return tables
}
