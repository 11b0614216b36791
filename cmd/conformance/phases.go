package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// phaseOrder is how the phases of a cell are listed.
var phaseOrder = []string{runner.PhaseBuild, runner.PhaseCluster, runner.PhaseInstall, runner.PhaseScenario,
	runner.PhaseWaits, runner.PhaseHolds, runner.PhaseEvidence, runner.PhaseTeardown}

// Phases renders where a run spent its time: its wall time and setup, then
// each cell's runs by phase, and the phases in all. A parallel run's cells
// ran side by side: their sum is cluster time, not wall time.
func Phases(r *report.Report) string {
	var b strings.Builder
	wall := r.Finished.Sub(r.Started).Round(time.Second)
	fmt.Fprintf(&b, "run %s: %d cell(s), wall %s", r.RunID, len(r.Cells), wall)
	if e := r.Estimate; e != nil {
		fmt.Fprintf(&b, " (estimated warm %s, cold %s, on %d cluster(s); %d build(s) needed then)", secs(e.WarmSeconds), secs(e.ColdSeconds), e.Parallel, len(e.Builds))
	}
	b.WriteString("\n")
	if s, ok := r.Phases["setup"]; ok {
		fmt.Fprintf(&b, "setup before the first cell: %s, of which builds %s\n", secs(s+r.Phases["setup_build"]), secs(r.Phases["setup_build"]))
	}
	fmt.Fprintf(&b, "%-62s %-15s %7s", "cell", "outcome", "total")
	for _, p := range phaseOrder {
		fmt.Fprintf(&b, " %8s", p)
	}
	b.WriteString("\n")
	all := map[string]float64{}
	var total float64
	for _, c := range r.Cells {
		for _, run := range c.Results() {
			phases := run.Phases
			fmt.Fprintf(&b, "%-62s %-15s %6.0fs", c.ID(), run.Outcome, run.Duration)
			for _, p := range phaseOrder {
				fmt.Fprintf(&b, " %7.0fs", phases[p])
				all[p] += phases[p]
			}
			total += run.Duration
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "%-62s %-15s %6.0fs", "all cells (cluster time)", "", total)
	for _, p := range phaseOrder {
		fmt.Fprintf(&b, " %7.0fs", all[p])
	}
	b.WriteString("\n")
	return b.String()
}
