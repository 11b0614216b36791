package fleet

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
)

// Plan is a fleet run's plan: one cell, FleetVariant, which the
// report makes a cell per Application (Expand).
func Plan(s *spec.Spec, sc matrix.Scenario) (*matrix.Data, runner.Scenarios) {
	// an install, the generation, two reads and an upgrade: a guess until
	// reports/ holds measured times (make bench-upgrade-check measures it)
	sc.Seconds = 300 + 3*len(s.Apps) + 60*len(s.AppSets)
	sc.Title = "a team's fleet through one in-place ArgoCD upgrade"
	var from []string
	for _, r := range s.Repos {
		from = append(from, r.URL)
	}
	sc.Summary = fmt.Sprintf("On a cluster with %s, %d Application(s) and %d ApplicationSet(s) created on ArgoCD %s (repositories served with their history: %s), ArgoCD upgraded in place once to %s (%s); every Application's render, sync and health compared.",
		s.Metrics, len(s.Apps), len(s.AppSets), s.From, text.OrNone(strings.Join(from, ", ")), s.To, s.MethodSaid())
	sc.Variants = []matrix.Variant{{Name: FleetVariant, Summary: "every Application on one ArgoCD, upgraded once", ArgoCDUpgrades: []string{s.To.String()}}}
	d, code := appcell.Plan(sc, appcell.Known{Want: report.Safe, Why: spec.Unchanged, Flag: "make upgrade-check -expect"}, func(c matrix.Cell) step.Scenario { return Feature(s, c) })
	c := code[spec.Scenario]
	c.Expand = func(rc report.Cell, dir string) ([]report.Cell, []string) { return expand(s, rc, dir) }
	code[spec.Scenario] = c
	return d, code
}

// expand makes the fleet cell (rc, its evidence in dir) a cell per
// Application, from its FleetFile, each expected SAFE or as EXPECT says;
// one not judged (the run ended first) takes the fleet cell's outcome and
// reason; none when the fleet read no Application (the fleet cell stands,
// saying why).
func expand(s *spec.Spec, rc report.Cell, dir string) ([]report.Cell, []string) {
	data, err := os.ReadFile(filepath.Join(dir, FleetFile))
	if err != nil {
		return nil, nil
	}
	var results []AppResult
	if err := json.Unmarshal(data, &results); err != nil {
		return nil, []string{"the fleet's verdicts could not be read: " + err.Error()}
	}
	var out []report.Cell
	for _, r := range results {
		c := rc
		c.Variant, c.Outcome, c.Reason, c.Runs = r.Name, r.Outcome, r.Reason, nil
		if r.Outcome == "" {
			// the run ended before the fleet was judged: the fleet cell's
			// outcome is each one's (an upgrade that could not finish)
			c.Outcome, c.Reason = rc.Outcome, "the fleet ended before its Applications were judged: "+rc.Reason
		}
		c.Evidence = filepath.Join(rc.Evidence, r.Evidence)
		c.Explained, c.Unexplained = r.Explained, r.Unexplained
		c.Expected, c.ExpectedWhy = report.Safe, spec.Unchanged
		if o, ok := s.Expect[r.Name]; ok {
			c.Expected, c.ExpectedWhy = o, cmp.Or(s.ExpectWhy, "make upgrade-check -expect")
		}
		if r.By != "APPS" {
			c.Observations = []string{"made by " + r.By}
		} else {
			c.Observations = nil
		}
		out = append(out, c)
	}
	notes := []string{fmt.Sprintf("the fleet: %d Applications on one ArgoCD (cell %s: %s)", len(results), rc.ID(), rc.Reason)}
	for _, r := range s.Refused {
		notes = append(notes, "not taken: "+r)
	}
	if len(s.Others) > 0 {
		// interference across shards is not seen: each runs on its own cluster
		notes = append(notes, fmt.Sprintf("SHARD: the other shards' Applications and ApplicationSets, not run here (what one of them does to an Application of this shard is not seen): %s", strings.Join(s.Others, ", ")))
	}
	return out, notes
}
