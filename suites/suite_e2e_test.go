//go:build e2e

package suites

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"
	"sigs.k8s.io/e2e-framework/pkg/types"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/scenarios/kargo"
	"github.com/gitops-conformance/suite/scenarios/knative"
	"github.com/gitops-conformance/suite/scenarios/kubeovn"
	"github.com/gitops-conformance/suite/scenarios/kyverno"
	"github.com/gitops-conformance/suite/scenarios/openkruise"
)

// scenarios maps a scenario name to the function that builds its feature for a cell.
var scenarios = map[string]func(matrix.Cell) features.Feature{
	"kargo-argocd":       kargo.Feature,
	"knative-argocd":     knative.Feature,
	"kubeovn-argocd":     kubeovn.Feature,
	"kyverno-argocd":     kyverno.Feature,
	"openkruise-webhook": openkruise.Feature,
}

// Suite is one run of the matrix: the cells, their results and where they go.
type Suite struct {
	Run    *env.Run
	Data   *matrix.Data
	Cells  []matrix.Cell
	Repeat int
	Dir    string

	mu     sync.Mutex
	Report *report.Report
	once   sync.Once
}

// finish writes the report and the summary table before the cluster goes.
func (s *Suite) finish() types.EnvFunc {
	return func(ctx context.Context, _ *envconf.Config) (context.Context, error) {
		if err := s.Run.ExportLogs(ctx, filepath.Join(s.Dir, "cluster-logs")); err != nil {
			s.Run.Logf("export cluster logs: %v", err)
		}
		s.writeReport("")
		return ctx, nil
	}
}

func (s *Suite) writeReport(note string) {
	s.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		r := s.Report
		r.Finished = time.Now().UTC()
		r.Offline = s.Run.Mode == images.Offline
		r.Notes = append(r.Notes, s.Run.Notes...)
		if s.Run.ModeWhy != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("mode %s: %s", s.Run.Mode, s.Run.ModeWhy))
		}
		if note != "" {
			r.Notes = append(r.Notes, note)
		}
		if err := r.Write(s.Dir); err != nil {
			s.Run.Logf("write report: %v", err)
			return
		}
		s.Run.Logf("report: %s/report.{json,md,html} and junit.xml", s.Dir)
		fmt.Fprint(s.Run.Out, summary(r))
	})
}

func summary(r *report.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-22s %-28s %-9s %-16s %-16s %-16s %6s\n", "SCENARIO", "VARIANT", "ARGOCD", "COMPONENT", "OUTCOME", "EXPECTED", "TIME")
	for _, c := range r.Cells {
		mark := ""
		if c.Unexpected {
			mark = "  <- unexpected"
		}
		fmt.Fprintf(&b, "%-22s %-28s %-9s %-16s %-16s %-16s %5.0fs%s\n", c.Scenario, c.Variant, c.ArgoCD, c.ComponentVersion, c.Outcome, c.Expected, c.Duration, mark)
	}
	return b.String()
}

// runCell runs one cell Repeat times and records it.
func (s *Suite) runCell(t *testing.T, c matrix.Cell) {
	rc := c.Report()
	expected, why := s.Data.Expected(c, s.Run.Mode == images.Offline)
	rc.Expected = expected
	rc.Evidence = filepath.Join("cells", rc.ID())
	for i := range s.Repeat {
		evidence := rc.Evidence
		if s.Repeat > 1 {
			evidence = filepath.Join(evidence, fmt.Sprintf("run-%d", i+1))
		}
		dir := filepath.Join(s.Dir, evidence)
		s.Run.Logf("cell %s: start (run %d/%d)", rc.ID(), i+1, s.Repeat)
		outcome, reason, obs := s.prepare(c)
		start := time.Now()
		if outcome == "" {
			outcome, reason, obs = s.execute(t, c, dir)
		}
		d := time.Since(start).Seconds()
		s.Run.Logf("cell %s: %s in %.0fs: %s", rc.ID(), outcome, d, reason)
		rc.Runs = append(rc.Runs, report.Run{Outcome: outcome, Reason: reason, Duration: d, Evidence: evidence})
		rc.Observations = obs
		s.writeBundle(dir, c, outcome, reason)
	}
	if s.Repeat == 1 {
		rc.Outcome, rc.Reason, rc.Duration = rc.Runs[0].Outcome, rc.Runs[0].Reason, rc.Runs[0].Duration
		rc.Runs = nil
	}
	rc.Settle()
	s.mu.Lock()
	s.Report.Cells = append(s.Report.Cells, rc)
	s.mu.Unlock()
	if rc.Unexpected || rc.Outcome == report.Error || rc.Outcome == report.Flaky {
		t.Errorf("%s: %s, expected %s (%s): %s", rc.ID(), rc.Outcome, rc.Expected, why, rc.Reason)
	}
}

// skipped says why a cell cannot run in mode, or "".
func skipped(c matrix.Cell, mode images.Mode) string {
	if mode == images.Offline && c.Scenario.OfflineSkip != "" {
		return "offline: " + c.Scenario.OfflineSkip
	}
	return ""
}

// needsCluster is false when every cell of the plan is skipped in mode.
func (s *Suite) needsCluster(mode images.Mode) bool {
	for _, c := range s.Cells {
		if skipped(c, mode) == "" {
			return true
		}
	}
	return false
}

// prepare decides whether a cell can run and installs its ArgoCD release
// (shared by the cells of one release, so not part of a cell's duration).
// A non-empty outcome means the cell ends there.
func (s *Suite) prepare(c matrix.Cell) (report.Outcome, string, []string) {
	if why := skipped(c, s.Run.Mode); why != "" {
		return report.Skipped, why, nil
	}
	if _, ok := scenarios[c.Scenario.Name]; !ok {
		return report.Error, "no scenario function registered for " + c.Scenario.Name, nil
	}
	if err := s.Run.InstallArgoCD(env.WithRun(context.Background(), s.Run), c.ArgoCD); err != nil {
		return report.Error, err.Error(), nil
	}
	return "", "", nil
}

// execute runs a cell's feature once and returns its outcome.
func (s *Suite) execute(t *testing.T, c matrix.Cell, dir string) (report.Outcome, string, []string) {
	build := scenarios[c.Scenario.Name]
	ctx := env.WithRun(context.Background(), s.Run)
	ctx, rec := assert.WithRecord(ctx, c.Variant.Name != "bug")
	ctx, cell := env.WithCell(ctx, dir)
	testenv.WithContext(ctx).Test(t, build(c))
	outcome, reason := rec.Outcome()
	if err := s.Run.End(ctx, cell); err != nil {
		outcome, reason = report.Error, fmt.Sprintf("%s (verdict before cleanup: %s %s)", err, outcome, reason)
	}
	return outcome, reason, rec.Observations
}

// writeBundle writes a reproduction bundle: versions, outcome, the replay command.
func (s *Suite) writeBundle(dir string, c matrix.Cell, outcome report.Outcome, reason string) {
	_ = os.MkdirAll(dir, 0o755)
	var b strings.Builder
	fmt.Fprintf(&b, "# Reproduction: %s / %s on ArgoCD %s\n\n", c.Scenario.Name, c.Variant.Name, c.ArgoCD)
	fmt.Fprintf(&b, "%s\n\nVariant: %s\n\n", c.Scenario.Summary, c.Variant.Summary)
	fmt.Fprintf(&b, "Outcome: **%s**: %s\n\n", outcome, reason)
	fmt.Fprintf(&b, "| what | version |\n|---|---|\n| ArgoCD | %s |\n| %s | %s |\n| Kubernetes | %s (kind %s) |\n| images | %s |\n\n",
		c.ArgoCD, c.Scenario.Component, c.ComponentVersion, s.Run.Catalog.Kubernetes.Version, s.Run.Catalog.Kind, s.Run.Mode)
	fmt.Fprintf(&b, "Replay exactly this cell with this suite (github.com/gitops-conformance/suite):\n\n    %s\n\n", c.Replay())
	b.WriteString("Steps with timestamps: steps.txt. Objects, events and controller logs: the other files here.\nUpstream: " + c.Scenario.Upstream + "\n")
	_ = os.WriteFile(filepath.Join(dir, "REPRODUCE.md"), []byte(b.String()), 0o644)
}

// runCheck runs a feature that is not a matrix cell (no verdict, no report
// cell): it passes or fails the test, and cleans up like a cell.
func (s *Suite) runCheck(t *testing.T, name string, f features.Feature) {
	ctx := env.WithRun(context.Background(), s.Run)
	ctx, _ = assert.WithRecord(ctx, false)
	ctx, cell := env.WithCell(ctx, filepath.Join(s.Dir, "checks", name))
	start := time.Now()
	testenv.WithContext(ctx).Test(t, f)
	if err := s.Run.End(ctx, cell); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	s.Run.Logf("check %s: done in %.0fs (failed: %v)", name, time.Since(start).Seconds(), t.Failed())
}
