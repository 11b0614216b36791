package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/schedule"
)

func cellOn(scenario, variant, tag string) matrix.Cell {
	return matrix.Cell{Scenario: matrix.Scenario{Name: scenario}, Variant: matrix.Variant{Name: variant}, ArgoCD: catalog.MustRelease(tag)}
}

func TestOnlyKeepsThePlansOrderAndRefusesAnUnknownCell(t *testing.T) {
	cells := []matrix.Cell{cellOn("s", "a", "v2.13.3"), cellOn("s", "b", "v2.13.3"), cellOn("s", "c", "v2.13.3")}
	got, err := only(cells, []string{"s_c_v2.13.3", "s_a_v2.13.3"})
	if err != nil || len(got) != 2 || got[0].Variant.Name != "a" || got[1].Variant.Name != "c" {
		t.Fatalf("only = %v, %v", got, err)
	}
	if _, err := only(cells, []string{"s_d_v2.13.3"}); err == nil || !strings.Contains(err.Error(), "s_d_v2.13.3") {
		t.Errorf("an unknown cell: %v", err)
	}
}

// fakeShard is a stand-in for the test binary: it takes cells from its
// -queue (a rename, as Queue.Take does) and writes a report of them into its
// -reports directory, as a shard's run does, or, with FAKE_SHARD=wait, waits
// for SIGINT and writes a report that says it was interrupted.
const fakeShard = `#!/usr/bin/env bash
set -eu
while [ $# -gt 0 ]; do
  case $1 in -queue) queue=$2; shift;; -cluster) cluster=$2; shift;; -reports) reports=$2; shift;; esac; shift
done
echo "started on $cluster"
stopped=""
[ "${FAKE_SHARD:-}" != limit ] || stopped="interrupted: the run's time limit"
if [ "${FAKE_SHARD:-}" = wait ]; then
  trap 'stopped=interrupted' INT
  echo waiting
  while [ -z "$stopped" ]; do sleep 0.1; done
fi
out=""
for f in "$queue"/pending/*; do
  [ -z "$stopped" ] && [ -e "$f" ] || break
  name=${f##*/}
  mv "$f" "$queue/taken/$name@$cluster" 2>/dev/null || continue
  id=${name#*.}
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
	cells := []matrix.Cell{cellOn("s", "a", "v2.13.3"), cellOn("s", "b", "v2.13.3"), cellOn("t", "a", "v3.1.4")}
	r := testRunner(t, cells...)
	out := &syncBuffer{}
	r.Run.Out = out
	r.Run.Cluster = "c"
	code := r.Parallel(context.Background(), 2, schedule.ReadCosts(t.TempDir()), self, nil, nil)
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
	cells := []matrix.Cell{cellOn("s", "a", "v2.13.3"), cellOn("t", "a", "v3.1.4")}
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
	code := r.Parallel(ctx, 2, schedule.ReadCosts(t.TempDir()), self, nil, nil)
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

// A cluster's run that stopped at its own time limit (before this run's)
// makes the run's exit status 130, as the limit stopped it, not 1.
func TestParallelStoppedByTheClustersTimeLimitIsInterrupted(t *testing.T) {
	self := filepath.Join(t.TempDir(), "shard.sh")
	if err := os.WriteFile(self, []byte(fakeShard), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_SHARD", "limit")
	r := testRunner(t, cellOn("s", "a", "v2.13.3"), cellOn("t", "a", "v3.1.4"))
	out := &syncBuffer{}
	r.Run.Out = out
	if code := r.Parallel(context.Background(), 2, schedule.ReadCosts(t.TempDir()), self, nil, nil); code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, out.String())
	}
	rep, err := report.LoadDir(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Stopped, "time limit") || len(rep.NotRun) != 2 {
		t.Errorf("stopped %q, not run %d: want the time limit and both cells", rep.Stopped, len(rep.NotRun))
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

// A cleanup that fails after the verdict is a note, the verdict kept (a
// blocked upgrade stays BROKEN, issue #74); evidence not written, or a
// cleanup failing where no verdict was reached, is an ERROR that keeps the
// verdict it had in its reason.
func TestAVerdictOutlivesItsCleanup(t *testing.T) {
	cleanup := errors.Join(&lifecycle.CleanupError{What: []string{"namespace argocd: timed out"}}, nil)
	o, why, obs := afterEnd(report.Broken, "on v3.6.1: the upgrade cannot finish", []string{"seen"}, cleanup)
	if o != report.Broken || why != "on v3.6.1: the upgrade cannot finish" || len(obs) != 2 || !strings.Contains(obs[1], "after the verdict, cleanup: namespace argocd: timed out") {
		t.Errorf("a verdict then a cleanup failing: %s (%s) %q", o, why, obs)
	}
	evidence := errors.Join(&lifecycle.CleanupError{What: []string{"x"}}, &lifecycle.EvidenceError{Files: []string{"a.txt"}, Err: errors.New("read-only")})
	if o, why, _ := afterEnd(report.Reproduced, "held", nil, evidence); o != report.Error || !strings.Contains(why, "verdict before cleanup: REPRODUCED held") {
		t.Errorf("evidence not written: %s (%s), want ERROR", o, why)
	}
	if o, _, _ := afterEnd("", "", nil, cleanup); o != report.Error {
		t.Errorf("no verdict, a cleanup failing: %s, want ERROR", o)
	}
	if o, why, _ := afterEnd(report.Safe, "the same", nil, nil); o != report.Safe || why != "the same" {
		t.Errorf("a clean end: %s (%s)", o, why)
	}
}
