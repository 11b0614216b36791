package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/runner"
)

// Bad input is one line each and exit 2: the command, its flags, a name
// suites/upgrade-check.yaml lacks, an unset variable of a chart path.
func TestUpgradeCheckAppsRefusesWithOneLine(t *testing.T) {
	t.Setenv("OPENKRUISE_CHARTS", "")
	out := t.TempDir()
	for _, args := range [][]string{
		nil,
		{"runs"},
		{"apps"},
		{"apps", "-out"},
		{"apps", "-out", out, "-only", "nope"},
		{"apps", "-out", out, "-only", "kruise"},
	} {
		var stdout bytes.Buffer
		err := execute(context.Background(), cli{stdout: &stdout}, append([]string{"upgrade-check"}, args...))
		if !runner.IsBadInput(err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("upgrade-check %v: want one line of bad input, got %v", args, err)
		}
		if stdout.Len() > 0 {
			t.Errorf("upgrade-check %v wrote %q", args, stdout.String())
		}
	}
	err := execute(context.Background(), cli{stdout: &bytes.Buffer{}}, []string{"upgrade-check", "apps", "-out", out, "-only", "kruise"})
	if err == nil || !strings.Contains(err.Error(), "upgrade-check apps: kruise: ") || !strings.Contains(err.Error(), "set OPENKRUISE_CHARTS") {
		t.Errorf("an unset variable: %v", err)
	}
}

// A line per Application written: its name, file and chart. Kargo's, from a
// source tree where KARGO_SOURCES points, is offline.
func TestUpgradeCheckAppsWrites(t *testing.T) {
	trees := t.TempDir()
	if err := os.MkdirAll(filepath.Join(trees, "kargo-v1.11.2", "charts", "kargo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(trees, "kargo-v1.11.2", "charts", "kargo", "Chart.yaml"), []byte("apiVersion: v2\nname: kargo\nversion: 0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KARGO_SOURCES", trees)
	t.Setenv("GITOPS_CONFORMANCE_CACHE", t.TempDir())
	out := t.TempDir()
	var stdout bytes.Buffer
	if err := execute(context.Background(), cli{stdout: &stdout}, []string{"upgrade-check", "apps", "-out", out, "-only", "kargo"}); err != nil {
		t.Fatal(err)
	}
	want := "kargo\t" + filepath.Join(out, "kargo.yaml") + "\tchart kargo 0.1.0 from kargo@v1.11.2 source tree, charts/kargo ("
	if !strings.HasPrefix(stdout.String(), want) || strings.Count(stdout.String(), "\n") != 1 {
		t.Errorf("printed %q, want a line %q...", stdout.String(), want)
	}
}
