package schedule

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

func cellOn(scenario, variant, tag string) matrix.Cell {
	return matrix.Cell{Scenario: matrix.Scenario{Name: scenario}, Variant: matrix.Variant{Name: variant}, ArgoCD: catalog.MustRelease(tag)}
}

func costByScenario(c matrix.Cell) time.Duration {
	if c.Scenario.Name == "kyverno-argocd" {
		return 5 * time.Minute
	}
	return time.Minute
}

func TestQueueGivesEachCellToOneClusterOnly(t *testing.T) {
	var cells []matrix.Cell
	for _, tag := range []string{"v2.13.3", "v2.14.11", "v2.14.21"} {
		for _, v := range []string{"bug", "a", "b", "c", "d"} {
			cells = append(cells, cellOn("kubeovn-argocd", v, tag), cellOn("kyverno-argocd", v, tag))
		}
	}
	q, err := NewQueue(t.TempDir(), 4, cells, 2, costByScenario)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for k := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cluster := fmt.Sprintf("c-%d", k+1)
			var last *Unit
			for {
				u, _, ok, err := q.Take(cluster, last)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				last = &u
				mu.Lock()
				if by, dup := seen[u.ID]; dup {
					t.Errorf("%s taken by %s and %s", u.ID, by, cluster)
				}
				seen[u.ID] = cluster
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != len(cells) {
		t.Errorf("%d cells taken, want %d", len(seen), len(cells))
	}
	taken, _ := os.ReadDir(filepath.Join(q.Dir, "taken"))
	if len(taken) != len(cells) || !strings.Contains(taken[0].Name(), "@c-") {
		t.Errorf("taken/ holds %d entries (%v), want %d named <n>.<id>@<cluster>", len(taken), taken[0].Name(), len(cells))
	}
}

func TestQueueKeepsAClusterOnItsReleaseUnlessTheLargestWouldMakeTheTail(t *testing.T) {
	last := &Unit{ArgoCD: "v2.14.11", Scenario: "kubeovn-argocd"}
	take := func(big time.Duration) Unit {
		t.Helper()
		cells := []matrix.Cell{cellOn("kyverno-argocd", "bug", "v2.13.3")}
		for _, v := range []string{"a", "b", "c", "d"} {
			cells = append(cells, cellOn("kubeovn-argocd", v, "v2.14.11"))
		}
		q, err := NewQueue(t.TempDir(), 2, cells, 1, func(c matrix.Cell) time.Duration {
			if c.Scenario.Name == "kyverno-argocd" {
				return big
			}
			return time.Minute
		})
		if err != nil {
			t.Fatal(err)
		}
		if first, _, _, _ := q.Take("c-1", nil); first.Scenario != "kyverno-argocd" {
			t.Fatalf("a cluster with nothing installed took %s, want the largest", first.ID)
		}
		if err := os.Rename(filepath.Join(q.Dir, "taken", "0001.kyverno-argocd_bug_v2.13.3@c-1"), filepath.Join(q.Dir, "pending", "0001.kyverno-argocd_bug_v2.13.3")); err != nil {
			t.Fatal(err)
		}
		u, _, _, err := q.Take("c-2", last)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	// 3 min against a fair share of 3.5 min: the cluster stays on its release
	if u := take(3 * time.Minute); u.ArgoCD != "v2.14.11" {
		t.Errorf("a cluster with v2.14.11 took %s, want a v2.14.11 cell (the larger one is not the tail)", u.ID)
	}
	// 30 min against a fair share of 17 min: it goes first, whoever is free
	if u := take(30 * time.Minute); u.Scenario != "kyverno-argocd" {
		t.Errorf("a cluster with v2.14.11 took %s, want the 30-minute cell that would make the tail", u.ID)
	}
}

func TestEstimateSharesTheClusterTimeButNotTheLargestCell(t *testing.T) {
	var cells []matrix.Cell
	for _, tag := range []string{"v2.13.3", "v2.14.11"} {
		for _, v := range []string{"a", "b", "c"} {
			cells = append(cells, cellOn("kubeovn-argocd", v, tag))
		}
	}
	cells = append(cells, cellOn("kyverno-argocd", "bug", "v2.14.11"))
	costs := ReadCosts(t.TempDir()) // nothing measured: the default per cell
	skipped := cellOn("kubeovn-argocd", "d", "v2.14.11")
	skipped.Skip = "its sources are not provided"
	cells = append(cells, skipped)
	e := EstimateOf(cells, 2, costs, nil)
	if e.Total != 7*2*DefaultCellCost || e.Releases != 2 || e.Measured != 0 || e.ByScenario["kubeovn-argocd"] != 12*DefaultCellCost || e.Skipped != 1 {
		t.Fatalf("estimate %+v (a SKIPPED cell costs nothing)", e)
	}
	if e.Clusters != 1 || e.Installs != 2 {
		t.Fatalf("one Kubernetes version, two releases: %d cluster(s), %d install(s)", e.Clusters, e.Installs)
	}
	if got, want := e.Wall(1), e.Total+2*InstallCost+ClusterCreate; got != want {
		t.Errorf("Wall(1) = %s, want %s", got, want)
	}
	if got, want := e.Wall(2), (e.Total+2*InstallCost+ClusterCreate+ClusterCreate+InstallCost)/2; got != want {
		t.Errorf("Wall(2) = %s, want %s (the second cluster made and installed beside)", got, want)
	}
	if got, floor := e.Wall(100), e.Largest+InstallCost+ClusterCreate; got != e.Wall(e.Cells) || got < floor {
		t.Errorf("Wall(100) = %s, want Wall(%d) (no more clusters than cells), never under the largest cell, a cluster and an install, %s", got, e.Cells, floor)
	}
	one := EstimateOf(cells[len(cells)-2:len(cells)-1], 1, costs, nil)
	if got, want := one.Wall(3), DefaultCellCost+InstallCost+ClusterCreate; got != want {
		t.Errorf("one cell on 3 clusters: %s, want %s", got, want)
	}
	other := cellOn("kubeovn-argocd", "a", "v2.13.3")
	other.Kubernetes = catalog.KubeVersion{Version: "v1.35.4"}
	if e := EstimateOf(append(cells, other), 1, costs, nil); e.Clusters != 2 || e.Installs != 3 {
		t.Errorf("a second Kubernetes version: %d cluster(s), %d install(s), want 2 and 3", e.Clusters, e.Installs)
	}
}

func TestQueueReopensWithItsClusterCount(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewQueue(dir, 3, []matrix.Cell{cellOn("s", "a", "v2.13.3")}, 1, costByScenario); err != nil {
		t.Fatal(err)
	}
	q, err := OpenQueue(dir)
	if err != nil || q.Clusters != 3 || q.Dir != dir {
		t.Fatalf("OpenQueue = %+v, %v", q, err)
	}
	if _, err := OpenQueue(t.TempDir()); err == nil {
		t.Error("a directory with no queue opened")
	}
}

func TestCostsUseTheMedianOfMeasuredRuns(t *testing.T) {
	dir := t.TempDir()
	for i, d := range []float64{100, 300, 200} {
		rep := &report.Report{RunID: fmt.Sprint(i), Cells: []report.Cell{
			{Scenario: "s", Variant: "a", ArgoCD: "v2.13.3", Outcome: report.Reproduced, Duration: d},
			{Scenario: "s", Variant: "b", ArgoCD: "v2.13.3", Outcome: report.Error, Duration: 9999},
		}}
		if err := rep.Save(filepath.Join(dir, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	costs := ReadCosts(dir)
	cost := costs.Of
	if got := cost(cellOn("s", "a", "v2.13.3")); got != 200*time.Second || !costs.Measured(cellOn("s", "a", "v2.13.3")) {
		t.Errorf("measured cell: %s, want the median 200s", got)
	}
	b := cellOn("s", "b", "v2.13.3")
	if got := cost(b); got != DefaultCellCost {
		t.Errorf("a cell measured only as ERROR: %s, want the default", got)
	}
	b.Scenario.Seconds = 42
	if got := cost(b); got != 42*time.Second {
		t.Errorf("the scenario's typical time: %s, want 42s", got)
	}
}

// A cell measured on one Kubernetes version costs as much on another; and a
// cluster stays on its Kubernetes version when the queue holds cells of it:
// two shards on two versions each take their own version's cells.
func TestQueueKeepsAClusterOnItsKubernetesVersion(t *testing.T) {
	dir := t.TempDir()
	measured := cellOn("kargo-argocd", "fg", "v2.14.11")
	measured.Kubernetes = catalog.KubeVersion{Version: "v1.33.13"}
	rep := &report.Report{RunID: "r", Cells: []report.Cell{measured.Report()}}
	rep.Cells[0].Outcome, rep.Cells[0].Duration = report.Mitigated, 590
	if err := rep.Save(filepath.Join(dir, "r")); err != nil {
		t.Fatal(err)
	}
	costs := ReadCosts(dir)
	var cells []matrix.Cell
	for _, k := range []string{"v1.33.13", "v1.35.4"} {
		for _, v := range []string{"fg", "cascade"} {
			c := cellOn("kargo-argocd", v, "v2.14.11")
			c.Kubernetes = catalog.KubeVersion{Version: k}
			cells = append(cells, c)
		}
	}
	if got := costs.Of(cells[2]); got != 590*time.Second {
		t.Errorf("fg on v1.35.4 costs %s, want fg's measured 590s on v1.33.13", got)
	}
	q, err := NewQueue(t.TempDir(), 2, cells, 10, func(matrix.Cell) time.Duration { return 590 * time.Second })
	if err != nil {
		t.Fatal(err)
	}
	for _, shard := range []struct{ cluster, kube string }{{"c-1", "v1.33.13"}, {"c-2", "v1.35.4"}, {"c-1", "v1.33.13"}, {"c-2", "v1.35.4"}} {
		u, _, ok, err := q.Take(shard.cluster, &Unit{Kubernetes: shard.kube})
		if err != nil || !ok || u.Kubernetes != shard.kube {
			t.Errorf("%s on %s took %+v (%v)", shard.cluster, shard.kube, u, err)
		}
	}
}
