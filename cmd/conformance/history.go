package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
)

// History renders, for the newest runs under reports that recorded their
// plan's estimate, the estimate against what the run took: the whole run
// (warm and cold against wall) and per scenario (cell time).
func History(reports string, newest int) string {
	paths, _ := filepath.Glob(filepath.Join(reports, "*", "report.json"))
	slices.Sort(paths)
	var b strings.Builder
	shown := 0
	for i := len(paths) - 1; i >= 0 && shown < newest; i-- {
		if fi, err := os.Lstat(filepath.Dir(paths[i])); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue
		}
		rep, err := report.Load(paths[i])
		if err != nil || rep.Estimate == nil || rep.Finished.IsZero() {
			continue
		}
		if shown == 0 {
			b.WriteString("\nestimate against actual, the newest runs under " + reports + "/ (wall for the run, warm and cold as estimated;\nper scenario the cells' own time, builds, clusters and installs apart):\n")
		}
		shown++
		e := rep.Estimate
		fmt.Fprintf(&b, "  %s  wall %s; estimated warm %s, cold %s (%d build(s) needed then)  %s\n", rep.RunID,
			rep.Finished.Sub(rep.Started).Round(time.Second), secs(e.WarmSeconds), secs(e.ColdSeconds), len(e.Builds), rep.Command)
		actual, setup := map[string]float64{}, map[string]float64{}
		for _, c := range rep.Cells {
			for _, r := range c.Results() {
				actual[c.Scenario] += r.Duration
				setup[c.Scenario] += r.Phases["build"] + r.Phases["cluster"] + r.Phases["install"]
			}
		}
		for _, s := range slices.Sorted(maps.Keys(e.Scenarios)) {
			fmt.Fprintf(&b, "      %-22s cells estimated %8s, took %8s (and %s in builds, clusters and installs)\n",
				s, secs(e.Scenarios[s]), secs(actual[s]-setup[s]), secs(setup[s]))
		}
	}
	return b.String()
}

func secs(s float64) time.Duration { return (time.Duration(s) * time.Second).Round(time.Second) }
