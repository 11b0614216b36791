package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/suites"
)

func TestValidationTableComparesTheKnownAnswers(t *testing.T) {
	vs := []suites.Validation{
		{Name: "kruise-unlabelled", Title: "kruise 1.5.2 unlabelled", ArgoCD: "v2.14.11", Expect: map[string]report.Outcome{"self-blocking-webhook": report.Reproduced}},
		{Name: "clean", Title: "the clean chart", ArgoCD: "v2.14.11", Expect: map[string]report.Outcome{"crd-diff": report.NotReproduced, "hook-stuck": report.NotReproduced}},
		{Name: "never-ran", Title: "a validation without a run", ArgoCD: "v2.14.3", Expect: map[string]report.Outcome{"hook-stuck": report.Reproduced}},
	}
	started := time.Date(2026, 11, 24, 11, 9, 6, 0, time.UTC)
	cell := func(check string, o report.Outcome, chart, version string) report.Cell {
		return report.Cell{Scenario: "conform", Variant: check, Outcome: o, Component: chart, ComponentVersion: version, Kubernetes: "v1.33.13"}
	}
	runs := map[string]*report.Report{
		"kruise-unlabelled": {RunID: "20261124-110906", Started: started, Offline: true, Cells: []report.Cell{cell("self-blocking-webhook", report.Reproduced, "kruise", "1.5.2")}},
		"clean": {RunID: "20261124-111310", Started: started.Add(time.Minute), Offline: true, Cells: []report.Cell{
			cell("crd-diff", report.NotReproduced, "conform-clean", "0.1.0"), cell("hook-stuck", report.Error, "conform-clean", "0.1.0")}},
	}
	table, failed := ValidationTable(vs, runs)
	if failed != 2 {
		t.Errorf("failed = %d, want 2 (an ERROR and a run missing):\n%s", failed, table)
	}
	for _, want := range []string{
		"| `kruise-unlabelled`: kruise 1.5.2 unlabelled | kruise 1.5.2 | v2.14.11 | v1.33.13 | `self-blocking-webhook` | REPRODUCED | REPRODUCED | 20261124-110906 |",
		"| `clean`: the clean chart | conform-clean 0.1.0 | v2.14.11 | v1.33.13 | `crd-diff` | NOT_REPRODUCED | NOT_REPRODUCED | 20261124-111310 |",
		"| `hook-stuck` | NOT_REPRODUCED | ERROR **differs** | 20261124-111310 |",
		"| `never-ran`: a validation without a run |  | v2.14.3 |  | `hook-stuck` | REPRODUCED | not run **differs** |  |",
		"2 of 4 known answers matched (runs started 2026-11-24 11:09 UTC, offline).",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
}
