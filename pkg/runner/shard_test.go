package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

func cellOn(scenario, variant, tag string) matrix.Cell {
	return matrix.Cell{Scenario: matrix.Scenario{Name: scenario}, Variant: matrix.Variant{Name: variant}, ArgoCD: tag}
}

func TestSplitKeepsAReleasesScenarioTogetherAndBalances(t *testing.T) {
	var cells []matrix.Cell
	for _, tag := range []string{"v2.13.3", "v2.14.11", "v2.14.21"} {
		for _, v := range []string{"bug", "a", "b"} {
			cells = append(cells, cellOn("kubeovn-argocd", v, tag), cellOn("kyverno-argocd", v, tag))
		}
	}
	cells = append(cells, cellOn("knative-argocd", "bug", "v2.14.11"))
	cost := func(c matrix.Cell) time.Duration {
		if c.Scenario.Name == "kyverno-argocd" {
			return 5 * time.Minute
		}
		return time.Minute
	}
	shards := Split(cells, 3, 1, cost)
	if len(shards) != 3 {
		t.Fatalf("%d shards, want 3", len(shards))
	}
	where := map[[2]string]int{}
	total := 0
	for _, s := range shards {
		total += len(s.Cells)
		for i, c := range s.Cells {
			k := [2]string{c.ArgoCD, c.Scenario.Name}
			if w, ok := where[k]; ok && w != s.Index {
				t.Errorf("%s on %s split between shards %d and %d", k[1], k[0], w, s.Index)
			}
			where[k] = s.Index
			if i > 0 && s.Cells[i-1].ArgoCD > c.ArgoCD {
				t.Errorf("shard %d: %s after %s: releases not in order", s.Index, c.ArgoCD, s.Cells[i-1].ArgoCD)
			}
		}
		// the three kyverno groups (15 min each) go one per shard
		if s.Estimate > 25*time.Minute {
			t.Errorf("shard %d estimated %s: unbalanced (%s)", s.Index, s.Estimate, s.Describe())
		}
	}
	if total != len(cells) {
		t.Errorf("%d cells dealt, want %d", total, len(cells))
	}
	if got := Split(cells[:2], 4, 1, cost); len(got) != 2 {
		t.Errorf("2 groups on 4 clusters: %d shards, want 2 (empty ones dropped)", len(got))
	}
}

func TestOnlyKeepsThePlansOrderAndRefusesAnUnknownCell(t *testing.T) {
	cells := []matrix.Cell{cellOn("s", "a", "v1.0.0"), cellOn("s", "b", "v1.0.0"), cellOn("s", "c", "v1.0.0")}
	got, err := only(cells, []string{"s_c_v1.0.0", "s_a_v1.0.0"})
	if err != nil || len(got) != 2 || got[0].Variant.Name != "a" || got[1].Variant.Name != "c" {
		t.Fatalf("only = %v, %v", got, err)
	}
	if _, err := only(cells, []string{"s_d_v1.0.0"}); err == nil || !strings.Contains(err.Error(), "s_d_v1.0.0") {
		t.Errorf("an unknown cell: %v", err)
	}
}

func TestCostsUseTheMedianOfMeasuredRuns(t *testing.T) {
	dir := t.TempDir()
	for i, d := range []float64{100, 300, 200} {
		rep := &report.Report{RunID: fmt.Sprint(i), Cells: []report.Cell{
			{Scenario: "s", Variant: "a", ArgoCD: "v1.0.0", Outcome: report.Reproduced, Duration: d},
			{Scenario: "s", Variant: "b", ArgoCD: "v1.0.0", Outcome: report.Error, Duration: 9999},
		}}
		if err := rep.WriteFiles(filepath.Join(dir, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	cost := Costs(dir)
	if got := cost(cellOn("s", "a", "v1.0.0")); got != 200*time.Second {
		t.Errorf("measured cell: %s, want the median 200s", got)
	}
	b := cellOn("s", "b", "v1.0.0")
	if got := cost(b); got != defaultCellCost {
		t.Errorf("a cell measured only as ERROR: %s, want the default", got)
	}
	b.Scenario.Seconds = 42
	if got := cost(b); got != 42*time.Second {
		t.Errorf("the scenario's typical time: %s, want 42s", got)
	}
}

// fakeShard is a stand-in for the test binary: it writes a report of the
// cells it was given (-cells) into its -reports directory, as a shard's run
// does, or, with FAKE_SHARD=wait, waits for SIGINT and writes a report that
// says it was interrupted.
const fakeShard = `#!/usr/bin/env bash
set -eu
while [ $# -gt 0 ]; do
  case $1 in -cells) cells=$2; shift;; -reports) reports=$2; shift;; esac; shift
done
stopped=""
if [ "${FAKE_SHARD:-}" = wait ]; then
  trap 'stopped=interrupted' INT
  echo waiting
  while [ -z "$stopped" ]; do sleep 0.1; done
fi
out=""
IFS=, read -ra ids <<< "$cells"
for id in "${ids[@]}"; do
  IFS=_ read -r s v a <<< "$id"
  out="$out${out:+,}{\"scenario\":\"$s\",\"variant\":\"$v\",\"argocd\":\"$a\",\"outcome\":\"REPRODUCED\",\"expected\":\"REPRODUCED\",\"duration_seconds\":1,\"evidence\":\"cells/$id\"}"
  echo "$(date +%H:%M:%S) cell $id: REPRODUCED in 1s: held"
done
mkdir -p "$reports/run"
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
printf '{"run_id":"run","started":"%s","finished":"%s","kubernetes":"v1.33.13","offline":true,"stopped":"%s","cells":[%s]}' "$now" "$now" "$stopped" "$out" > "$reports/run/report.json"
ln -s run "$reports/latest"
[ -z "$stopped" ] || exit 130
`

func TestParallelRunsShardsAndMergesTheirReports(t *testing.T) {
	self := filepath.Join(t.TempDir(), "shard.sh")
	if err := os.WriteFile(self, []byte(fakeShard), 0o755); err != nil {
		t.Fatal(err)
	}
	cells := []matrix.Cell{cellOn("s", "a", "v1.0.0"), cellOn("s", "b", "v1.0.0"), cellOn("t", "a", "v2.0.0")}
	r := testRunner(t, cells...)
	out := &syncBuffer{}
	r.Run.Out = out
	r.Run.Cluster = "c"
	shards := Split(cells, 2, 1, func(matrix.Cell) time.Duration { return time.Minute })
	code := r.Parallel(context.Background(), shards, self, nil, nil)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, out.String())
	}
	rep, err := report.LoadDir(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cells) != 3 || len(rep.Sources) != 2 || rep.RunID != "run" {
		t.Fatalf("merged report: %d cells, %d sources, run id %q", len(rep.Cells), len(rep.Sources), rep.RunID)
	}
	for _, c := range rep.Cells {
		if !strings.HasPrefix(c.Evidence, "shards/") {
			t.Errorf("%s: evidence %q does not point into its shard", c.ID(), c.Evidence)
		}
	}
	for _, want := range []string{"[1/2] ", "[2/2] ", "on cluster c-1", "on cluster c-2", "progress: 3/3 cell run(s) done"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestParallelInterruptedStopsEachShardAndSaysSo(t *testing.T) {
	self := filepath.Join(t.TempDir(), "shard.sh")
	if err := os.WriteFile(self, []byte(fakeShard), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_SHARD", "wait")
	cells := []matrix.Cell{cellOn("s", "a", "v1.0.0"), cellOn("t", "a", "v2.0.0")}
	r := testRunner(t, cells...)
	out := &syncBuffer{}
	r.Run.Out = out
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		for !strings.Contains(out.String(), "[2/2] waiting") || !strings.Contains(out.String(), "[1/2] waiting") {
			time.Sleep(50 * time.Millisecond)
		}
		cancel(fmt.Errorf("interrupted by interrupt"))
	}()
	code := r.Parallel(ctx, Split(cells, 2, 1, func(matrix.Cell) time.Duration { return time.Minute }), self, nil, nil)
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, out.String())
	}
	rep, err := report.LoadDir(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Stopped, "interrupted by interrupt") || !strings.Contains(rep.Stopped, "shard 1: interrupted") {
		t.Errorf("stopped %q does not say the run and the shards were interrupted", rep.Stopped)
	}
}

// syncBuffer is output the test reads while the shards write it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
