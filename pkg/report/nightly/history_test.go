package nightly

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
)

func TestHistoryRendersEachNightAndTheGrid(t *testing.T) {
	site := t.TempDir()
	a := nightly("merged-a", 22,
		cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.NotReproduced, report.NotReproduced),
		cell("kyverno-argocd", "minimal", "v3.4.12", "", report.NotReproduced, ""))
	b := nightly("merged-b", 23,
		cell("kyverno-argocd", "bug", "v3.5.7", "v1.14.0", report.Reproduced, report.NotReproduced),
		cell("kyverno-argocd", "bug", "v3.6.1", "v1.14.0", report.NotReproduced, ""))
	a.Cells[0].Evidence = "shards/x/cells/kyverno"
	for id, r := range map[string]*report.Report{"20261122-021700": a, "20261123-021700": b} {
		if err := r.Save(filepath.Join(site, "nights", id)); err != nil {
			t.Fatal(err)
		}
	}
	d := DiffOf(a, b, []string{"3.5", "3.6"})
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site, "nights", "20261123-021700", "diff.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site, "nights", "20261123-021700", "night.json"), []byte(`{"run_url": "https://example.com/runs/7"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	nights, err := LoadNights(site)
	if err != nil {
		t.Fatal(err)
	}
	if len(nights) != 2 || nights[0].ID != "20261122-021700" || nights[0].Diff != nil || nights[1].Diff == nil || nights[1].RunURL == "" {
		t.Fatalf("nights: %+v", nights)
	}
	page := nights[0].Page()
	if page.Cells[0].Evidence != "" || nights[0].Report.Cells[0].Evidence == "" || !strings.Contains(strings.Join(page.Notes, " "), "artifact conformance-report") {
		t.Errorf("the published page keeps evidence links into the run's artifact or does not say where it is: %+v", page.Cells[0])
	}
	html := History(nights, 14)
	for _, want := range []string{
		`<a href="nights/20261123-021700/report.html">20261123-021700</a>`,
		`1 <span class="fail">(1 failed the nightly)</span>`,
		"ArgoCD v3.6.1",
		`<th class="line" colspan="1">ArgoCD 3.4</th>`, // not among the newest diff's supported lines
		`<th class="line supported" colspan="1">ArgoCD 3.6</th>`,
		`<span class="not_reproduced" title="20261122-021700: NOT_REPRODUCED"></span><span class="reproduced" title="20261123-021700: REPRODUCED (expected NOT_REPRODUCED)"></span>`,
		`<span class="none" title="20261122-021700: not run"></span>`,
		"stale", // the minimal cell did not run in the newest night
	} {
		if !strings.Contains(html, want) {
			t.Errorf("index lacks %q", want)
		}
	}
}
