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
// there, and the validations not run are "not run".
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
	script := `#!/bin/bash
while [ $# -gt 0 ]; do
  case $1 in -reports) dir=$2; shift ;; -command) name=${2#*ONLY=}; shift ;; esac; shift
done
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
	table := filepath.Join(t.TempDir(), "table.md")
	var out bytes.Buffer
	err = execute(context.Background(), cli{stdout: &out}, []string{"conform", "validate", "-e2e", fake, "-reports", t.TempDir(), "-table", table,
		"-only", "fixture-conform-clean,fixture-patch-keys-crd", "--", "-mode", "offline"})
	if err == nil || !strings.Contains(err.Error(), "not matched") {
		t.Fatalf("conform validate: %v, want the validations not run not matched\n%s", err, out.String())
	}
	b, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		ran := strings.Contains(line, "`fixture-conform-clean`") || strings.Contains(line, "`fixture-patch-keys-crd`")
		if !strings.HasPrefix(line, "| `") || strings.HasPrefix(line, "| validation") {
			continue
		}
		if ran && (strings.Contains(line, "differs") || !strings.Contains(line, "| run-fixture-")) {
			t.Errorf("a validation run, its row not from its own report: %s", line)
		}
		if !ran && !strings.Contains(line, "not run") {
			t.Errorf("a validation not run, its row: %s", line)
		}
	}
}
