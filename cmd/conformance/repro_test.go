package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/runner"
)

func TestReproRunRejectsBadInputWithOneLine(t *testing.T) {
	cat, data := loadMatrix(t)
	for _, args := range [][]string{{"repro"}, {"repro", "walk"}, {"repro", "run", t.TempDir()}} {
		err := run(context.Background(), cat, data, args[0], args[1:])
		if !runner.IsBadInput(err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: want a one-line usage error, got %v", args, err)
		}
	}
}

// A cell that ended ERROR has no verdict for its bundle to reach: it is not run.
func TestReproRunSkipsBundlesWithoutAVerdict(t *testing.T) {
	cat, _ := loadMatrix(t)
	cell := filepath.Join(t.TempDir(), "cells", "kubeovn-argocd_bug_v2.14.11")
	if err := os.MkdirAll(cell, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := repro.Write(cell, repro.Cell{ID: "kubeovn-argocd_bug_v2.14.11", Outcome: "ERROR", Reason: "install argocd: boom"}, &repro.Log{}, nil); err != nil {
		t.Fatal(err)
	}
	run := filepath.Dir(filepath.Dir(cell))
	// the run named by its latest link, as make repro names it
	latest := filepath.Join(t.TempDir(), "latest")
	if err := os.Symlink(run, latest); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{run, latest} {
		var out bytes.Buffer
		err := reproCommand(context.Background(), cat, []string{"run", dir}, &out)
		if err == nil || !strings.Contains(out.String(), "not run: the cell ended ERROR") {
			t.Fatalf("%s: err %v, output %q", dir, err, out.String())
		}
	}
}
