package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/suites"
)

// TestConformValidateReadsEachRunsOwnReport runs conform validate on two
// fixture validations with a stand-in for the e2e test binary that writes,
// into the -reports directory it is given, the report of the validation its
// -command names (its known answers): the table reads each run's report
// there. With -only the table holds the validations run, written beside
// their reports.
func TestConformValidateReadsEachRunsOwnReport(t *testing.T) {
	vs, err := suites.Validations()
	if err != nil {
		t.Fatal(err)
	}
	answers := t.TempDir()
	for _, v := range vs {
		r := report.Report{RunID: "run-" + v.Name}
		for check, o := range v.Expect {
			r.Cells = append(r.Cells, report.Cell{Scenario: "conform", Variant: check, Outcome: o, Expected: o})
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(answers, v.Name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fake := filepath.Join(t.TempDir(), "e2e.test")
	clusters := filepath.Join(t.TempDir(), "clusters")
	script := `#!/bin/bash
keep=no
while [ $# -gt 0 ]; do
  case $1 in -reports) dir=$2; shift ;; -command) name=${2#*ONLY=}; shift ;; -cluster) cluster=$2; shift ;; -keep) keep=yes ;; esac; shift
done
echo "$cluster keep=$keep" >> "` + clusters + `"
mkdir -p "$dir/run" && cp "` + answers + `/$name.json" "$dir/run/report.json" && ln -s run "$dir/latest"
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(root) // as make runs it
	t.Setenv("GITOPS_CONFORMANCE_CACHE", t.TempDir())
	reports := t.TempDir()
	var out bytes.Buffer
	// -only without -table: the table of the validations run, beside their
	// reports; docs/conform-validation.md (the whole run's) is not touched
	docs, err := os.ReadFile(filepath.Join("docs", "conform-validation.md"))
	if err != nil {
		t.Fatal(err)
	}
	err = execute(context.Background(), cli{stdout: &out}, []string{"conform", "validate", "-e2e", fake, "-reports", reports,
		"-only", "fixture-conform-clean,fixture-patch-keys-crd", "--", "-mode", "offline"})
	if err != nil {
		t.Fatalf("conform validate: %v, want every answer of the validations run matched\n%s", err, out.String())
	}
	if after, _ := os.ReadFile(filepath.Join("docs", "conform-validation.md")); !bytes.Equal(after, docs) {
		t.Error("conform validate -only rewrote docs/conform-validation.md")
	}
	tables, _ := filepath.Glob(filepath.Join(reports, "conform-validate-*", "conform-validation.md"))
	if len(tables) != 1 {
		t.Fatalf("tables beside the reports: %v, want one", tables)
	}
	b, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		rows++
		ran := strings.Contains(line, "`fixture-conform-clean`") || strings.Contains(line, "`fixture-patch-keys-crd`")
		if !ran {
			t.Errorf("a validation not selected, in the table: %s", line)
		}
		if strings.Contains(line, "differs") || !strings.Contains(line, "| run-fixture-") {
			t.Errorf("a validation run, its row not from its own report: %s", line)
		}
	}
	if rows == 0 {
		t.Errorf("no rows in the table:\n%s", b)
	}
	// one cluster, kept between the runs and deleted after the last
	if b, _ := os.ReadFile(clusters); string(b) != "gitops-conformance keep=yes\ngitops-conformance keep=no\n" {
		t.Errorf("the runs' clusters:\n%s", b)
	}
	// the table again from the run's reports (one command for both kinds)
	var again bytes.Buffer
	if err := execute(context.Background(), cli{stdout: &again}, []string{"table", filepath.Dir(tables[0])}); err != nil || again.String() != string(b) {
		t.Errorf("table: %v\n%s\nwant the run's:\n%s", err, again.String(), b)
	}
	mixed := filepath.Join(t.TempDir(), "upgrade-check-validate-x")
	if err := execute(context.Background(), cli{stdout: &again}, []string{"table", filepath.Dir(tables[0]), mixed}); err == nil || !strings.Contains(err.Error(), "one kind of validation a table") {
		t.Errorf("table of two kinds: %v", err)
	}
}
