package releases

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/schedule"
)

// The nightly's tiers, bounding its cost.
const (
	// TierFull is every variant, on the pinned component versions and the
	// component's newest release, on the seed pins and on the newest patch
	// of each supported line.
	TierFull = "full"
	// TierMinimal is the minimal variants (the ArgoCD side alone, a minute
	// or two a cell) on every other patch of the supported lines.
	TierMinimal = "minimal"
)

// Shard is one job of the nightly's matrix: one scenario on one ArgoCD
// release, as `make e2e` takes it.
type Shard struct {
	// ID names the shard's artifact: scenario, release and tier.
	ID        string `json:"id"`
	Scenario  string `json:"scenario"`
	ArgoCD    string `json:"argocd"`
	Tier      string `json:"tier"`
	Seed      bool   `json:"seed"`      // a release the matrix was measured on
	Supported bool   `json:"supported"` // on a supported minor line
	// Variant is make e2e's VARIANT ("" every variant), ComponentVersion its
	// COMPONENT_VERSION ("" the variants' own), Cells its CELLS ("" every
	// cell the rest selects).
	Variant          string `json:"variant"`
	ComponentVersion string `json:"component_version"`
	Cells            string `json:"cells"`
	CellCount        int    `json:"cell_count"`
	// Unmeasured counts the cells no measured expectation covers in this
	// mode: their outcomes are news.
	Unmeasured int `json:"unmeasured"`
	// Seconds is the cells' estimated cluster time (make plan's costs);
	// E2EMinutes bounds make e2e (about twice the cells and the setup, so a
	// slow night passes and a hang ends), JobMinutes the job (20 more for
	// checkout, caches, the build and the upload).
	Seconds    int `json:"seconds"`
	E2EMinutes int `json:"e2e_minutes"`
	JobMinutes int `json:"job_minutes"`

	ids      []string      // its cells' IDs
	estimate time.Duration // its cells, clusters and setup (ShardBudget bounds it)
}

// NotRun is a release the plan leaves out because this mode cannot build or
// pull it.
type NotRun struct {
	What      string   `json:"what"`
	Scenarios []string `json:"scenarios"`
	Why       string   `json:"why"`
}

// Tier is what a tier costs, estimated.
type Tier struct {
	Name   string `json:"name"`
	Shards int    `json:"shards"`
	Cells  int    `json:"cells"`
	// ClusterMinutes: the cells alone; RunnerMinutes: every job start to
	// end (the setup and the job's own steps added); LongestMinutes: the
	// longest job.
	ClusterMinutes int `json:"cluster_minutes"`
	RunnerMinutes  int `json:"runner_minutes"`
	LongestMinutes int `json:"longest_minutes"`
}

// Costs of a shard beyond its cells, on a hosted runner online: a kind
// cluster and an ArgoCD install with pulled images (the README's "about 5
// minutes"), and the job's own steps (checkout, cache restore, an
// incremental build of the CLI and the e2e binary, the upload).
const (
	shardSetup  = 5 * time.Minute
	jobSteps    = 10 * time.Minute
	jobBudget   = 20 // minutes over the e2e budget
	minBudget   = 20 // minutes: no e2e budget below it
	maxJobLimit = 360
)

// Plan turns what Find found into the nightly's shards: the full tier on
// each scenario's seed pins and on the newest obtainable patch of each
// supported line, the minimal tier on every other obtainable patch of the
// supported lines; what this mode cannot run is listed with why.
func (r *Releases) Plan(cat *catalog.Catalog, data *matrix.Data, costs *schedule.Costs) error {
	r.Shards, r.NotRun, r.Tiers = nil, nil, nil
	newestComponent := map[string]string{}
	for _, c := range r.Components {
		if c.NewestObtainable != "" && !slices.Contains(versionsOf(c.Pins), c.NewestObtainable) {
			newestComponent[c.Name] = c.NewestObtainable
		}
		for _, pin := range c.Pins {
			if !pin.Obtainable {
				r.NotRun = append(r.NotRun, NotRun{What: c.Name + " " + pin.Version + " (pin; its cells run SKIPPED)", Scenarios: c.Scenarios, Why: pin.How})
			}
		}
		if c.Newest.Version != "" && !c.Newest.Obtainable && !slices.Contains(versionsOf(c.Pins), c.Newest.Version) {
			r.NotRun = append(r.NotRun, NotRun{What: c.Name + " " + c.Newest.Version, Scenarios: c.Scenarios, Why: c.Newest.How})
		}
	}
	supportedNewest := map[string]bool{}
	supported := map[string]bool{}
	for _, l := range r.ArgoCD.Lines {
		for _, rel := range l.Releases {
			supported[rel.Version] = true
		}
		if l.NewestObtainable != "" {
			supportedNewest[l.NewestObtainable] = true
		}
	}
	seeds := map[string]bool{}
	for _, s := range r.ArgoCD.Seeds {
		seeds[s.Version] = true
		if !s.Obtainable {
			r.NotRun = append(r.NotRun, NotRun{What: "ArgoCD " + s.Version + " (seed pin)", Why: s.How})
		}
	}
	obtainable := map[string]bool{}
	for _, s := range r.ArgoCD.Seeds {
		obtainable[s.Version] = s.Obtainable
	}
	for _, l := range r.ArgoCD.Lines {
		for _, rel := range l.Releases {
			obtainable[rel.Version] = rel.Obtainable
		}
	}
	for _, s := range data.Scenarios {
		first := len(r.Shards)
		full := s.ArgoCDTags(cat.ArgoCD.Default)
		for tag := range supportedNewest {
			if !slices.Contains(full, tag) {
				full = append(full, tag)
			}
		}
		slices.SortFunc(full, catalog.CompareTags)
		for _, tag := range full {
			if !obtainable[tag] {
				continue // listed in NotRun
			}
			// a seed pin only some variants have on their own axis runs
			// those variants; the newest patch of a supported line, all
			var variants []string
			if !supportedNewest[tag] {
				variants = variantsOn(s, tag, cat.ArgoCD.Default)
			}
			shs, err := r.fullShard(cat, data, costs, s, tag, newestComponent[s.Component], variants)
			if err != nil {
				return err
			}
			for _, sh := range shs {
				sh.Seed, sh.Supported = seeds[tag], supported[tag]
				r.Shards = append(r.Shards, sh)
			}
		}
		if slices.ContainsFunc(s.Variants, func(v matrix.Variant) bool { return v.Name == "minimal" }) {
			for _, l := range r.ArgoCD.Lines {
				for _, rel := range l.Releases {
					if !rel.Obtainable || slices.Contains(full, rel.Version) {
						continue
					}
					shs, err := r.shard(cat, data, costs, s, rel.Version, TierMinimal, matrix.Selection{Variants: []string{"minimal"}}, nil)
					if err != nil {
						return err
					}
					for _, sh := range shs {
						sh.Seed, sh.Supported = seeds[rel.Version], true
						r.Shards = append(r.Shards, sh)
					}
				}
			}
		}
		slices.SortStableFunc(r.Shards[first:], func(a, b Shard) int { return catalog.CompareTags(a.ArgoCD, b.ArgoCD) })
	}
	for _, l := range r.ArgoCD.Lines {
		for _, rel := range l.Releases {
			if rel.Obtainable {
				continue
			}
			which := "minimal variants"
			if rel.Version == l.Newest {
				which = "every scenario"
			}
			r.NotRun = append(r.NotRun, NotRun{What: "ArgoCD " + rel.Version + " (" + which + ")", Why: rel.How})
		}
	}
	var err error
	if r.Shards, err = capJobs(r.Shards); err != nil {
		return err
	}
	r.Tiers = tiers(r.Shards)
	return nil
}

// fullShard is s's variants on tag (every variant when variants is nil): the
// pinned cells, and each that installs the component once more on its newest
// release.
func (r *Releases) fullShard(cat *catalog.Catalog, data *matrix.Data, costs *schedule.Costs, s matrix.Scenario, tag, newest string, variants []string) ([]Shard, error) {
	sel := matrix.Selection{Variants: variants}
	if newest == "" {
		return r.shard(cat, data, costs, s, tag, TierFull, sel, nil)
	}
	extra, err := data.Plan(cat, matrix.Selection{Scenarios: []string{s.Name}, Variants: variants, ArgoCD: []string{tag}, Versions: []string{newest}})
	if err != nil {
		return nil, fmt.Errorf("releases: %q on %q with %s %q: %w", s.Name, tag, s.Component, newest, err)
	}
	return r.shard(cat, data, costs, s, tag, TierFull, sel, extra)
}

// variantsOn is the variants of s whose default ArgoCD axis holds tag, nil
// when every variant's does.
func variantsOn(s matrix.Scenario, tag string, def []string) []string {
	var on []string
	for _, v := range s.Variants {
		if slices.Contains(s.ArgoCDAxis(v, def), tag) {
			on = append(on, v.Name)
		}
	}
	if len(on) == len(s.Variants) {
		return nil
	}
	return on
}

// shard plans s on tag with sel (scenario and release filled in), plus
// extra cells; it names sel's variants, and with extra its cells and
// versions. Cells whose estimate exceeds ShardBudget are packed into as
// few shards as fit it, each naming its cells (CELLS).
func (r *Releases) shard(cat *catalog.Catalog, data *matrix.Data, costs *schedule.Costs, s matrix.Scenario, tag, tier string, sel matrix.Selection, extra []matrix.Cell) ([]Shard, error) {
	sel.Scenarios, sel.ArgoCD = []string{s.Name}, []string{tag}
	cells, err := data.Plan(cat, sel)
	if err != nil {
		return nil, fmt.Errorf("releases: %q on %q: %w", s.Name, tag, err)
	}
	for _, c := range extra {
		id := c.Report().ID()
		if !slices.ContainsFunc(cells, func(x matrix.Cell) bool { return x.Report().ID() == id }) {
			cells = append(cells, c)
		}
	}
	groups := pack(cells, costs.Of, ShardBudget)
	var out []Shard
	for i, group := range groups {
		sh := Shard{ID: s.Name + "-" + tag + "-" + tier, Scenario: s.Name, ArgoCD: tag, Tier: tier, Variant: strings.Join(sel.Variants, ",")}
		if len(groups) > 1 {
			sh.ID += fmt.Sprintf("-%dof%d", i+1, len(groups))
		}
		if len(extra) > 0 || len(groups) > 1 {
			var versions []string
			for _, c := range group {
				if c.ComponentVersion != "" && !slices.Contains(versions, c.ComponentVersion) {
					versions = append(versions, c.ComponentVersion)
				}
			}
			sh.Cells, sh.ComponentVersion = strings.Join(ids(group), ","), strings.Join(versions, ",")
		}
		sh.ids = ids(group)
		var total time.Duration
		for _, c := range group {
			total += costs.Of(c)
			if o, _ := data.Expected(c, r.Mode == images.Offline); o == "" {
				sh.Unmeasured++
			}
		}
		sh.CellCount = len(group)
		sh.estimate = estimate(group, costs.Of)
		sh.Seconds = int(total.Seconds())
		sh.budget()
		out = append(out, sh)
	}
	return out, nil
}

// budget sets the shard's time limits from its estimate: make e2e about
// twice it (a slow night passes, a hang ends), the job 20 minutes more.
func (sh *Shard) budget() {
	sh.E2EMinutes = max(minBudget, roundUp(2*sh.estimate, 5))
	sh.JobMinutes = min(sh.E2EMinutes+jobBudget, maxJobLimit)
	sh.E2EMinutes = min(sh.E2EMinutes, sh.JobMinutes-5)
}

func ids(cells []matrix.Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Report().ID())
	}
	return out
}

// ShardBudget bounds a shard's estimate on a hosted runner (its cells, a
// cluster per Kubernetes version, the setup), and MaxJobs the shards of one
// night: GitHub runs at most 256 jobs from one matrix.
const (
	ShardBudget = 45 * time.Minute
	MaxJobs     = 256
)

// estimate is what a shard of cells takes on a hosted runner: the setup
// (a cluster and an install), the cells, and each further Kubernetes
// version's cluster and install.
func estimate(cells []matrix.Cell, cost func(matrix.Cell) time.Duration) time.Duration {
	d := shardSetup
	kubes := map[string]bool{}
	for _, c := range cells {
		d += cost(c)
		kubes[c.Kubernetes.Version] = true
	}
	return d + time.Duration(max(len(kubes)-1, 0))*schedule.ClusterCost
}

// pack splits cells into the fewest groups it finds whose estimate fits
// budget: largest first, each into the first group it fits (a cell that
// fits none alone gets one of its own), cells of one Kubernetes version
// kept together where they fit. Each group keeps the plan's order.
func pack(cells []matrix.Cell, cost func(matrix.Cell) time.Duration, budget time.Duration) [][]matrix.Cell {
	if estimate(cells, cost) <= budget {
		return [][]matrix.Cell{cells}
	}
	order := make([]int, len(cells))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(catalog.CompareTags(cells[a].Kubernetes.Version, cells[b].Kubernetes.Version), cmp.Compare(cost(cells[b]), cost(cells[a])))
	})
	var groups [][]int
	for _, i := range order {
		placed := false
		for g := range groups {
			try := append(slices.Clone(groups[g]), i)
			if estimate(pick(cells, try), cost) <= budget {
				groups[g], placed = try, true
				break
			}
		}
		if !placed {
			groups = append(groups, []int{i})
		}
	}
	out := make([][]matrix.Cell, len(groups))
	for g, idx := range groups {
		slices.Sort(idx)
		out[g] = pick(cells, idx)
	}
	return out
}

func pick(cells []matrix.Cell, idx []int) []matrix.Cell {
	out := make([]matrix.Cell, len(idx))
	for i, j := range idx {
		out[i] = cells[j]
	}
	return out
}

// capJobs merges a scenario's minimal-tier shards (one ArgoCD release each,
// a cell or two) into shards of several releases, as long as they fit
// ShardBudget, until the night has at most MaxJobs; an error when it still
// has more.
func capJobs(shards []Shard) ([]Shard, error) {
	for len(shards) > MaxJobs {
		merged := false
		for i := 0; i < len(shards) && len(shards) > MaxJobs; i++ {
			a := shards[i]
			if a.Tier != TierMinimal {
				continue
			}
			for j := i + 1; j < len(shards); j++ {
				b := shards[j]
				if b.Tier != TierMinimal || b.Scenario != a.Scenario || a.estimate+b.estimate-shardSetup > ShardBudget {
					continue
				}
				a.ArgoCD += "," + b.ArgoCD
				a.ID = a.Scenario + "-" + strings.ReplaceAll(a.ArgoCD, ",", "-") + "-" + TierMinimal
				a.ids = append(a.ids, b.ids...)
				a.Cells = strings.Join(a.ids, ",")
				a.CellCount += b.CellCount
				a.Unmeasured += b.Unmeasured
				a.Seconds += b.Seconds
				a.estimate += b.estimate - shardSetup
				a.Supported = a.Supported && b.Supported
				a.Seed = a.Seed || b.Seed
				a.budget()
				shards[i] = a
				shards = slices.Delete(shards, j, j+1)
				merged = true
				break
			}
		}
		if !merged {
			return nil, fmt.Errorf("releases: the night needs %d jobs, over GitHub's %d a matrix, with every minimal shard merged that fits %s: narrow the supported lines or the scenarios", len(shards), MaxJobs, ShardBudget)
		}
	}
	return shards, nil
}

// roundUp is d in whole minutes, rounded up to a multiple of step.
func roundUp(d time.Duration, step int) int {
	m := int((d + time.Minute - 1) / time.Minute)
	return (m + step - 1) / step * step
}

// tiers adds up the shards' estimates per tier.
func tiers(shards []Shard) []Tier {
	var out []Tier
	for _, name := range []string{TierFull, TierMinimal} {
		t := Tier{Name: name}
		for _, sh := range shards {
			if sh.Tier != name {
				continue
			}
			job := sh.estimate + jobSteps
			t.Shards++
			t.Cells += sh.CellCount
			t.ClusterMinutes += sh.Seconds / 60
			t.RunnerMinutes += int(job.Minutes())
			t.LongestMinutes = max(t.LongestMinutes, int(job.Minutes()))
		}
		out = append(out, t)
	}
	return out
}

func versionsOf(rels []Release) []string {
	var out []string
	for _, r := range rels {
		out = append(out, r.Version)
	}
	return out
}
