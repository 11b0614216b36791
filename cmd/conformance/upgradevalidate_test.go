package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/suites"
)

// TestUpgradeValidateRunsSideBySide runs upgrade-check validate on three
// validations, two at once, with a stand-in for the e2e test binary that
// writes into the -reports directory it is given the report of the
// validation its -command names, on the cluster it is given: one answer as
// known, one not. The table reads each run's own report, marks the one that
// differs, and the run fails for it; each run had a cluster of its own.
func TestUpgradeValidateRunsSideBySide(t *testing.T) {
	vs, err := suites.UpgradeValidations()
	if err != nil {
		t.Fatal(err)
	}
	picked := []string{"client-side-v3.2.6-v3.3.14", "server-side-v3.2.6-v3.3.14", "orphans-v2.14.11-v3.5.1"}
	answers := t.TempDir()
	for _, v := range vs {
		r := report.Report{RunID: "run-" + v.Name, Offline: true}
		for app, o := range v.Expect {
			if v.Name == "orphans-v2.14.11-v3.5.1" {
				o = report.Safe // the cluster disagreeing with the known answer
			}
			r.Cells = append(r.Cells, report.Cell{Scenario: "upgrade-check", Variant: app, Outcome: o})
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(answers, v.Name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clusters := filepath.Join(t.TempDir(), "clusters")
	fake := filepath.Join(t.TempDir(), "e2e.test")
	script := `#!/bin/bash
while [ $# -gt 0 ]; do
  case $1 in -reports) dir=$2; shift ;; -command) name=${2#*ONLY=}; shift ;; -cluster) cluster=$2; shift ;; esac; shift
done
echo "$cluster" >> "` + clusters + `"
echo "ran $name"
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
	reports := t.TempDir()
	var out bytes.Buffer
	err = execute(context.Background(), cli{stdout: &out}, []string{"upgrade-check", "validate", "-e2e", fake, "-reports", reports,
		"-parallel", "2", "-cluster", "uv", "-only", strings.Join(picked, ","), "--", "-mode", "offline"})
	if err == nil || !strings.Contains(err.Error(), "1 known answer(s) not matched") {
		t.Fatalf("upgrade-check validate: %v, want the orphans' answer not matched\n%s", err, out.String())
	}
	for _, name := range picked {
		if !strings.Contains(out.String(), "["+name+"] ran "+name) {
			t.Errorf("%s's output not prefixed with its name:\n%s", name, out.String())
		}
	}
	b, _ := os.ReadFile(clusters)
	if got := strings.Fields(string(b)); len(got) != 3 || strings.Count(string(b), "uv-1")+strings.Count(string(b), "uv-2") != 3 {
		t.Errorf("clusters %q, want uv-1 and uv-2 only", got)
	}
	tables, _ := filepath.Glob(filepath.Join(reports, "upgrade-check-validate-*", "upgrade-check-validation.md"))
	if len(tables) != 1 {
		t.Fatalf("tables beside the reports: %v, want one", tables)
	}
	table, _ := os.ReadFile(tables[0])
	for _, line := range strings.Split(string(table), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		differs := strings.Contains(line, "**differs**")
		if differs != strings.HasPrefix(line, "| `orphans-v2.14.11-v3.5.1`") {
			t.Errorf("row: %s", line)
		}
		if !strings.Contains(line, "| run-") {
			t.Errorf("a row not from its run's report: %s", line)
		}
	}
	if !strings.Contains(string(table), "2 of 3 known answers matched") {
		t.Errorf("table:\n%s", table)
	}
	// the table again from the run's reports: the same
	var again bytes.Buffer
	if err := execute(context.Background(), cli{stdout: &again}, []string{"table", filepath.Dir(tables[0])}); err == nil {
		t.Error("table: no error, want the orphans' answer not matched")
	}
	if again.String() != string(table) {
		t.Errorf("table:\n%s\nwant the run's:\n%s", again.String(), table)
	}

	// a validation run again into another directory: its row from there,
	// and the table says where
	second := filepath.Join(t.TempDir(), "upgrade-check-validate-again")
	if err := os.CopyFS(filepath.Join(second, "server-side-v3.2.6-v3.3.14"), os.DirFS(filepath.Join(filepath.Dir(tables[0]), "server-side-v3.2.6-v3.3.14"))); err != nil {
		t.Fatal(err)
	}
	var both bytes.Buffer
	_ = execute(context.Background(), cli{stdout: &both}, []string{"table", filepath.Dir(tables[0]), second})
	wantIn := "; for `server-side-v3.2.6-v3.3.14`, `upgrade-check-validate-again`."
	if !strings.Contains(both.String(), wantIn) || !strings.Contains(both.String(), "2 of 3 known answers matched") {
		t.Errorf("upgrade-check table of two runs lacks %q:\n%s", wantIn, both.String())
	}

	err = execute(context.Background(), cli{stdout: &out}, []string{"upgrade-check", "validate", "-e2e", fake, "-reports", reports, "-only", "no-such"})
	if _, ok := errors.AsType[*runner.BadInput](err); !ok {
		t.Errorf("an unknown validation: %v, want bad input", err)
	}
}
