package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/schedule"
	"github.com/gitops-conformance/suite/suites"
)

// loadMatrix is what main loads before it runs a command.
func loadMatrix(t *testing.T) (*catalog.Catalog, *matrix.Data) {
	t.Helper()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, err := suites.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	return cat, data
}

func TestCheckRejectsBadInputWithOneLine(t *testing.T) {
	cat, data := loadMatrix(t)
	for _, args := range [][]string{
		{"-scenario", "nope"},
		{"-scenario", "kubeovn-argocd", "-variant", "nope"},
		{"-argocd", "2.14"},
		{"-mode", "sometimes"},
	} {
		err := run(context.Background(), cat, data, "check", args)
		if !runner.IsBadInput(err) {
			t.Fatalf("check %v: want a usage error, got %v", args, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("check %v: error is not one line: %q", args, err)
		}
	}
	if out, err := List(cat, data); err != nil || !strings.Contains(out, "kubeovn-argocd") {
		t.Fatal("list must name the scenarios")
	}
}

// The real matrix.yaml: every expectation names variants of its scenario and
// an outcome their polarity allows (matrix.Parse refuses anything else).
func TestRealMatrixExpectationsHaveTheirVariantsPolarity(t *testing.T) {
	if _, err := suites.Matrix(); err != nil {
		t.Fatal(err)
	}
}

// fakeSources points ARGOCD_SOURCES at archives named for every release of
// the default axis built from a source tree (what a check looks for; their
// content is read only when a cell builds).
func fakeSources(t *testing.T, cat *catalog.Catalog) {
	t.Helper()
	dir := t.TempDir()
	for _, tag := range cat.ArgoCD.Default {
		if catalog.MustRelease(tag).FromSources() {
			if err := os.WriteFile(filepath.Join(dir, "argo-cd-"+tag+".tar.gz"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv(argocd.SourcesEnv, dir)
}

// Offline, without ARGOCD_SOURCES, a selection holding a release built from
// its source tree is refused by check: one line, naming the variable.
func TestCheckRefusesAReleaseWithoutItsSourceTree(t *testing.T) {
	cat, data := loadMatrix(t)
	t.Setenv(argocd.SourcesEnv, "")
	err := run(context.Background(), cat, data, "check", []string{"-scenario", "kubeovn-argocd", "-variant", "bug", "-mode", "offline"})
	if !runner.IsBadInput(err) || !strings.Contains(err.Error(), argocd.SourcesEnv) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("want one line naming %s, got %v", argocd.SourcesEnv, err)
	}
	fakeSources(t, cat)
	if err := run(context.Background(), cat, data, "check", []string{"-scenario", "kubeovn-argocd", "-variant", "bug", "-mode", "offline"}); err != nil {
		t.Fatalf("with the archives there: %v", err)
	}
}

func TestPlanNeedsNoClusterAndNamesEveryScenario(t *testing.T) {
	cat, data := loadMatrix(t)
	fakeSources(t, cat)
	cells, err := runner.Validate(context.Background(), cat, data, runner.Options{Mode: "offline", Repeat: 1, Clusters: 1})
	if err != nil {
		t.Fatal(err)
	}
	out := Plan(schedule.EstimateOf(cells, 1, schedule.ReadCosts(t.TempDir())), "reports")
	for _, want := range []string{"cluster time", "0 cell(s) from the median", "kubeovn-argocd", "kargo-argocd", "\n  8 "} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
}
