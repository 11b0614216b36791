//go:build e2e

package suites

import (
	"testing"
)

// TestMatrix runs the planned cells, each as a subtest, ArgoCD release
// outermost (a parallel run's cluster: the cells it takes from the queue).
func TestMatrix(t *testing.T) {
	if conf.Enabled() || upg.Enabled() {
		t.Skip("a make conform (-chart) or make upgrade-check (-apps) run: TestConform or TestUpgradeCheck runs its cells")
	}
	runCells(t)
}

// TestUpgradeCheck runs make upgrade-check's cells: each Application of
// -apps a cell, through the upgrade -from to -to.
func TestUpgradeCheck(t *testing.T) {
	if !upg.Enabled() {
		t.Skip("no -apps: make upgrade-check FROM=... TO=... [APPS=...] names the upgrade to check")
	}
	runCells(t)
}

// TestConform runs make conform's cells: each check of the chart (-chart)
// a cell, as TestMatrix runs the matrix's.
func TestConform(t *testing.T) {
	if !conf.Enabled() {
		t.Skip("no -chart: make conform CHART=... names the chart to check")
	}
	runCells(t)
}

// runCells runs the run's planned cells, each as a subtest.
func runCells(t *testing.T) {
	run.Plan()
	for cells := run.Next(runCtx); len(cells) > 0; cells = run.Next(runCtx) {
		for _, c := range cells {
			t.Run(c.Report().ID(), func(t *testing.T) {
				rc, ok := run.Cell(runCtx, c, exec(t))
				if !ok {
					t.Skip("not run: the run was interrupted")
				}
				// unexpected, ERROR, or FLAKY where the expectation is not RACE
				if rc.NeedsLook() {
					t.Errorf("%s: %s, expected %s (%s): %s", rc.ID(), rc.Outcome, rc.Expected, rc.ExpectedWhy, rc.Reason)
				}
			})
		}
	}
}

// TestBisect finds where one cell's outcome changes between -from and -to
// (make bisect), or runs every release between them (make sweep: -sweep).
func TestBisect(t *testing.T) {
	s, err := run.Bisect(runCtx, opts, exec(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(s.Verdict)
}
