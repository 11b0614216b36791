package report

import (
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// KubeGroup is one cell (scenario, variant, ArgoCD release, component
// version) on each Kubernetes version it ran on.
type KubeGroup struct {
	Scenario, Variant, ArgoCD, Component string
	Kubernetes                           []string // oldest first
	Cells                                []*Cell  // one per Kubernetes version
}

// AcrossKubernetes groups the cells that ran on more than one Kubernetes
// version, in the report's order.
func (r *Report) AcrossKubernetes() []KubeGroup {
	var groups []KubeGroup
	index := map[string]int{}
	for i := range r.Cells {
		c := &r.Cells[i]
		key := strings.Join([]string{c.Scenario, c.Variant, c.ArgoCD, c.ComponentVersion}, "|")
		j, ok := index[key]
		if !ok {
			j = len(groups)
			index[key] = j
			groups = append(groups, KubeGroup{Scenario: c.Scenario, Variant: c.Variant, ArgoCD: c.ArgoCD, Component: c.Component + " " + c.ComponentVersion})
		}
		groups[j].Cells = append(groups[j].Cells, c)
	}
	var out []KubeGroup
	for _, g := range groups {
		if len(g.Cells) < 2 {
			continue
		}
		slices.SortFunc(g.Cells, func(a, b *Cell) int { return catalog.CompareTags(a.Kubernetes, b.Kubernetes) })
		for _, c := range g.Cells {
			g.Kubernetes = append(g.Kubernetes, c.Kubernetes)
		}
		out = append(out, g)
	}
	return out
}
