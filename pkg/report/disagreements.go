package report

import (
	"fmt"
	"slices"
)

// The variants a minimal fixture is set beside: `minimal` reproduces the
// ArgoCD side of a scenario's `bug` without the third-party project.
const (
	bugVariant     = "bug"
	minimalVariant = "minimal"
)

// Disagreements sets each scenario's `minimal` cell beside its `bug` cells on
// the same ArgoCD release and says where their outcomes differ: a finding
// (the project adds or removes something the ArgoCD side alone does not),
// not a failure. Cells that did not reach a verdict are left out.
func (r *Report) Disagreements() []string {
	var out []string
	verdict := func(o Outcome) bool { return o == Reproduced || o == NotReproduced }
	for _, m := range r.Cells {
		if m.Variant != minimalVariant || !verdict(m.Outcome) {
			continue
		}
		for _, b := range r.Cells {
			if b.Scenario != m.Scenario || b.Variant != bugVariant || b.ArgoCD != m.ArgoCD || !verdict(b.Outcome) || b.Outcome == m.Outcome {
				continue
			}
			out = append(out, fmt.Sprintf("%s on ArgoCD %s: the project's bug (%s %s) %s, the minimal fixture %s: they disagree; a finding, not a failure",
				m.Scenario, m.ArgoCD, b.Component, b.ComponentVersion, b.Outcome, m.Outcome))
		}
	}
	return out
}

// noteDisagreements adds the disagreements to the report's notes, once each.
func (r *Report) noteDisagreements() {
	for _, d := range r.Disagreements() {
		if !slices.Contains(r.Notes, d) {
			r.Notes = append(r.Notes, d)
		}
	}
}
