package releases

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

func packCell(variant, kube string) matrix.Cell {
	return matrix.Cell{Scenario: matrix.Scenario{Name: "s"}, Variant: matrix.Variant{Name: variant},
		ArgoCD: catalog.MustRelease("v3.5.1"), Kubernetes: catalog.KubeVersion{Version: kube}}
}

// Cells over the budget go into the fewest shards that each fit it, a
// Kubernetes version's cells together where they fit; a cell larger than
// the budget alone gets a shard of its own; every cell is in one shard.
func TestPackFitsTheBudget(t *testing.T) {
	cost := func(c matrix.Cell) time.Duration {
		if c.Variant.Name == "huge" {
			return time.Hour
		}
		return 10 * time.Minute
	}
	var cells []matrix.Cell
	for i := range 10 {
		cells = append(cells, packCell(fmt.Sprintf("v%d", i), "v1.33.13"))
	}
	groups := pack(cells, cost, ShardBudget)
	if len(groups) != 3 { // 4 cells and the setup: 45 min; 4, 4, 2
		t.Fatalf("10 cells of 10 min: %d shards, want 3", len(groups))
	}
	seen := map[string]int{}
	for _, g := range groups {
		if d := estimate(g, cost); d > ShardBudget {
			t.Errorf("a shard of %s, over %s", d, ShardBudget)
		}
		for _, c := range g {
			seen[c.Report().ID()]++
		}
	}
	if len(seen) != 10 {
		t.Errorf("%d cells packed, want 10 each once: %v", len(seen), seen)
	}
	// two Kubernetes versions: each further one costs a cluster, so they are not mixed where they fit apart
	mixed := []matrix.Cell{packCell("a", "v1.33.13"), packCell("b", "v1.35.4"), packCell("c", "v1.33.13"), packCell("d", "v1.35.4"),
		packCell("e", "v1.33.13"), packCell("f", "v1.35.4")}
	for _, g := range pack(mixed, cost, ShardBudget) {
		if kube := g[0].Kubernetes.Version; !strings.HasPrefix(g[len(g)-1].Kubernetes.Version, kube) {
			t.Errorf("a shard mixes Kubernetes versions: %v", ids(g))
		}
	}
	if g := pack(append(cells[:2:2], packCell("huge", "v1.33.13")), cost, ShardBudget); len(g) != 2 {
		t.Errorf("an hour's cell: %d shards, want it alone and the two others together", len(g))
	}
	if g := pack(cells[:3], cost, ShardBudget); len(g) != 1 {
		t.Errorf("35 min: %d shards, want 1", len(g))
	}
}

// Over GitHub's 256 jobs, a scenario's minimal shards are merged (their
// releases and cells listed) while they fit the budget; past what merging
// can do, the plan is refused.
func TestCapJobsMergesMinimalShards(t *testing.T) {
	var shards []Shard
	for i := range 300 {
		tag := fmt.Sprintf("v3.%d.%d", 4+i/100, i%100)
		shards = append(shards, Shard{ID: "s-" + tag + "-minimal", Scenario: "s", ArgoCD: tag, Tier: TierMinimal, CellCount: 1,
			ids: []string{"s_minimal_" + tag}, estimate: shardSetup + 2*time.Minute, Seconds: 120, Supported: true})
	}
	out, err := capJobs(shards)
	if err != nil {
		t.Fatal(err)
	}
	cells := 0
	for _, sh := range out {
		cells += sh.CellCount
		if sh.estimate > ShardBudget || sh.CellCount != len(strings.Split(sh.Cells, ",")) && sh.CellCount > 1 {
			t.Errorf("%s: %s, %d cells, CELLS=%s", sh.ID, sh.estimate, sh.CellCount, sh.Cells)
		}
	}
	if len(out) > MaxJobs || cells != 300 {
		t.Errorf("%d jobs, %d cells; want at most %d, 300", len(out), cells, MaxJobs)
	}
	var full []Shard
	for i := range MaxJobs + 1 {
		full = append(full, Shard{ID: fmt.Sprint(i), Scenario: "s", Tier: TierFull, estimate: 40 * time.Minute})
	}
	if _, err := capJobs(full); err == nil || !strings.Contains(err.Error(), "257 jobs") {
		t.Errorf("257 full shards: want a refusal naming the count, got %v", err)
	}
}
