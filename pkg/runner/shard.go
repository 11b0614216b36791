package runner

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// MaxClusters bounds -clusters: each kind cluster with ArgoCD and a
// component holds 1.5-3 GiB and a share of the CPU.
const MaxClusters = 8

// installCost is what a cluster pays to run a release it does not have yet:
// loading its images and installing it (measured 60-120 s here, warm).
const installCost = 120 * time.Second

// defaultCellCost is a cell's estimate when neither the reports nor the
// matrix say more.
const defaultCellCost = 120 * time.Second

// Shard is one cluster's share of a run's cells.
type Shard struct {
	Index    int // from 1
	Cells    []matrix.Cell
	Estimate time.Duration
}

// IDs are the report IDs of the shard's cells, comma-separated (-cells).
func (s Shard) IDs() string {
	ids := make([]string, len(s.Cells))
	for i, c := range s.Cells {
		ids[i] = c.Report().ID()
	}
	return strings.Join(ids, ",")
}

// Describe is one line for the plan: the shard's cells by release.
func (s Shard) Describe() string {
	var parts []string
	for _, tag := range s.releases() {
		n := map[string]int{}
		var names []string
		for _, c := range s.Cells {
			if c.ArgoCD == tag {
				if n[c.Scenario.Name] == 0 {
					names = append(names, c.Scenario.Name)
				}
				n[c.Scenario.Name]++
			}
		}
		var what []string
		for _, name := range names {
			what = append(what, fmt.Sprintf("%s %d", name, n[name]))
		}
		parts = append(parts, tag+": "+strings.Join(what, ", "))
	}
	return fmt.Sprintf("%d cell(s), about %s: %s", len(s.Cells), s.Estimate.Round(time.Minute), strings.Join(parts, "; "))
}

func (s Shard) releases() []string {
	var tags []string
	for _, c := range s.Cells {
		if !slices.Contains(tags, c.ArgoCD) {
			tags = append(tags, c.ArgoCD)
		}
	}
	return tags
}

// Split deals the cells to n clusters so that they finish about together:
// the cells of one scenario on one ArgoCD release stay together (they share
// the release's install and the component's images), the largest groups go
// first, each to the cluster that would finish it soonest, counting the
// install of a release the cluster does not have yet (longest processing
// time first, a greedy schedule within 4/3 of the best). A shard runs its
// cells release by release, in the plan's order. Shards left empty (fewer
// groups than clusters) are dropped.
func Split(cells []matrix.Cell, n, repeat int, cost func(matrix.Cell) time.Duration) []Shard {
	type group struct {
		tag, scenario string
		cells         []matrix.Cell
		cost          time.Duration
	}
	var groups []*group
	index := map[[2]string]*group{}
	for _, c := range cells {
		k := [2]string{c.ArgoCD, c.Scenario.Name}
		g := index[k]
		if g == nil {
			g = &group{tag: c.ArgoCD, scenario: c.Scenario.Name}
			index[k] = g
			groups = append(groups, g)
		}
		g.cells = append(g.cells, c)
		g.cost += cost(c) * time.Duration(repeat)
	}
	slices.SortStableFunc(groups, func(a, b *group) int { return cmp.Compare(b.cost, a.cost) })
	shards := make([]Shard, n)
	has := make([]map[string]bool, n)
	for i := range shards {
		shards[i].Index = i + 1
		has[i] = map[string]bool{}
	}
	for _, g := range groups {
		best, bestEnd := 0, time.Duration(-1)
		for i := range shards {
			end := shards[i].Estimate + g.cost
			if !has[i][g.tag] {
				end += installCost
			}
			if bestEnd < 0 || end < bestEnd {
				best, bestEnd = i, end
			}
		}
		shards[best].Estimate = bestEnd
		shards[best].Cells = append(shards[best].Cells, g.cells...)
		has[best][g.tag] = true
	}
	order := map[string]int{}
	for i, c := range cells {
		order[c.Report().ID()] = i
	}
	var kept []Shard
	for _, s := range shards {
		if len(s.Cells) == 0 {
			continue
		}
		slices.SortStableFunc(s.Cells, func(a, b matrix.Cell) int {
			if c := catalog.CompareTags(a.ArgoCD, b.ArgoCD); c != 0 {
				return c
			}
			return cmp.Compare(order[a.Report().ID()], order[b.Report().ID()])
		})
		s.Index = len(kept) + 1
		kept = append(kept, s)
	}
	return kept
}

// Costs estimates each cell's time for one run: the median of the runs the
// reports under dir measured for it (ERROR and SKIPPED left out: an error's
// time says nothing of the cell's), else the scenario's typical time from
// suites/matrix.yaml (seconds:), else defaultCellCost.
func Costs(dir string) func(matrix.Cell) time.Duration {
	measured := map[string][]float64{}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "report.json"))
	for _, p := range paths {
		if fi, err := os.Lstat(filepath.Dir(p)); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue // reports/latest is one of the others
		}
		rep, err := report.Load(p)
		if err != nil {
			continue
		}
		for _, c := range rep.Cells {
			for _, run := range c.Results() {
				if run.Outcome != report.Error && run.Outcome != report.Skipped && run.Duration > 0 {
					measured[c.ID()] = append(measured[c.ID()], run.Duration)
				}
			}
		}
	}
	return func(c matrix.Cell) time.Duration {
		if d := measured[c.Report().ID()]; len(d) > 0 {
			slices.Sort(d)
			return time.Duration(d[len(d)/2] * float64(time.Second))
		}
		if c.Scenario.Seconds > 0 {
			return time.Duration(c.Scenario.Seconds) * time.Second
		}
		return defaultCellCost
	}
}
