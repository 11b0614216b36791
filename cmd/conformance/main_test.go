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
	"github.com/gitops-conformance/suite/pkg/report"
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
	// make list: the quick tier's cell IDs, what CELLS= takes, within 120 columns
	out, err := ListCells(cat, data)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(out, "\n") {
		if len(l) > listWidth {
			t.Errorf("make list line %d is %d columns: %q", i+1, len(l), l)
		}
	}
	quick, err := data.Plan(cat, matrix.Selection{Tier: matrix.TierQuick})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range quick {
		if !strings.Contains(out, "  "+c.Report().ID()+" ") {
			t.Errorf("make list does not name the quick tier's cell %s", c.Report().ID())
		}
	}
	if out, err := List(cat, data, catalog.Support{Why: "offline"}, t.TempDir()); err != nil || !strings.Contains(out, "kubeovn-argocd") {
		t.Fatal("list must name the scenarios")
	}
}

// listing is a fixed module proxy listing.
type listing map[string][]string

func (l listing) Versions(_ context.Context, module string) ([]string, error) { return l[module], nil }

// make list marks each release supported or end-of-life from the listing
// (could not tell without one) and says how the newest patch of a supported
// line can be had.
func TestListMarksSupportedReleases(t *testing.T) {
	cat, data := loadMatrix(t)
	support := cat.Support(context.Background(), listing{
		"github.com/argoproj/argo-cd/v2": {"v2.13.3", "v2.14.21"},
		"github.com/argoproj/argo-cd/v3": {"v3.3.19", "v3.4.7", "v3.4.13", "v3.5.1", "v3.5.7", "v3.6.0", "v3.6.1"},
	})
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "argo-cd-v3.5.7", "gitops-engine"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "argo-cd-v3.5.7", "gitops-engine", "go.mod"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(argocd.SourcesEnv, repo)
	out, err := List(cat, data, support, repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"supports (the 3 newest minor lines the module proxy lists, read now): 3.6 (newest v3.6.1), 3.5 (newest v3.5.7), 3.4 (newest v3.4.13)",
		"v2.13.3 end-of-life", "v3.4.7 supported", "v3.5.1 supported",
		"v3.6.1 supported",
		"3.5: newest v3.5.7, the axis has v3.5.1; ARGOCD=v3.5.7 runs it (its source tree is in ARGOCD_SOURCES)",
		"kargo-argocd (kargo; ArgoCD v2.14.11, v3.5.1, v3.6.1; supported: v3.5.1, v3.6.1; Kubernetes v1.33.13)",
		"      ArgoCD v2.14.11, v3.5.1, v3.6.1: ArgoCD is the deleter here",
		"      v1.11.2 offline k8s v1.33.13: v2.14.11 MITIGATED v3.5.1 MITIGATED",
		"kyverno-argocd (kyverno; ArgoCD v2.13.3, v2.14.3, v2.14.21, v3.0.12, v3.1.2, v3.1.4, v3.4.7, v3.5.1, v3.6.1; supported: v3.4.7, v3.5.1, v3.6.1; Kubernetes v1.33.13)",
		"kubeovn-argocd (kube-ovn; ArgoCD v2.13.3, v2.14.11, v2.14.21, v3.4.7, v3.5.1, v3.6.1; supported: v3.4.7, v3.5.1, v3.6.1; Kubernetes v1.33.13)",
		"  not obtainable: knative-serving v0.51.0: Knative 1.24: the module proxy serves knative.dev/serving@v0.51.0 but refuses",
		"      v0.50.0 offline k8s v1.33.13: SKIPPED (v0.50.0 needs Kubernetes v1.34.0 or newer)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	out, _ = List(cat, data, catalog.Support{Why: "the module proxy's list of github.com/argoproj/argo-cd/v3: 403 Forbidden"}, repo)
	if !strings.Contains(out, "supports: could not tell (the module proxy's list of github.com/argoproj/argo-cd/v3: 403 Forbidden)") || strings.Contains(out, "end-of-life") {
		t.Errorf("without a listing list must say it could not tell, never guess:\n%s", out)
	}
}

// The real matrix.yaml: every expectation names variants of its scenario and
// an outcome their polarity allows (matrix.Parse refuses anything else).
func TestRealMatrixExpectationsHaveTheirVariantsPolarity(t *testing.T) {
	if _, err := suites.Matrix(); err != nil {
		t.Fatal(err)
	}
}

// fakeSources points ARGOCD_SOURCES at checkouts named for every release of
// the default axis built from a source tree, each holding only what a check
// looks for (gitops-engine/go.mod; the rest is read only when a cell builds).
func fakeSources(t *testing.T, cat *catalog.Catalog) {
	t.Helper()
	dir := t.TempDir()
	for _, tag := range cat.ArgoCD.Default {
		if catalog.MustRelease(tag).FromSources() {
			engine := filepath.Join(dir, "argo-cd-"+tag, "gitops-engine")
			if err := os.MkdirAll(engine, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(engine, "go.mod"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv(argocd.SourcesEnv, dir)
}

// Offline, without ARGOCD_SOURCES, a release the user names that builds
// from its source tree is refused by check: one line, naming the variable.
// Left to the tier (not named), its cells are SKIPPED saying the same, and
// the others run. Not in -short: check asks the module proxy about the
// releases named.
func TestCheckRefusesAReleaseWithoutItsSourceTree(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: check asks the module proxy whether the ArgoCD releases named exist")
	}
	cat, data := loadMatrix(t)
	t.Setenv(argocd.SourcesEnv, "")
	named := []string{"-scenario", "kubeovn-argocd", "-variant", "bug", "-argocd", "v2.14.11,v3.5.1", "-mode", "offline"}
	err := run(context.Background(), cat, data, "check", named)
	if !runner.IsBadInput(err) || !strings.Contains(err.Error(), argocd.SourcesEnv) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("named: want one line naming %s, got %v", argocd.SourcesEnv, err)
	}
	cells, err := runner.Validate(context.Background(), cat, data, runner.Options{Scenarios: "kubeovn-argocd", Variants: "bug", Mode: "offline", Repeat: 1, Clusters: 1})
	if err != nil {
		t.Fatalf("the default axis: no refusal, got %v", err)
	}
	ran, skipped := 0, 0
	for _, c := range cells {
		switch {
		case c.ArgoCD.FromSources() && strings.Contains(c.Skip, argocd.SourcesEnv):
			skipped++
		case !c.ArgoCD.FromSources() && c.Skip == "":
			ran++
		default:
			t.Errorf("%s: skip %q", c.Report().ID(), c.Skip)
		}
	}
	if ran == 0 || skipped == 0 {
		t.Errorf("the default axis: %d cell(s) to run, %d SKIPPED; want both", ran, skipped)
	}
	fakeSources(t, cat)
	if err := run(context.Background(), cat, data, "check", named); err != nil {
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
	out := Plan(schedule.EstimateOf(cells, 1, schedule.ReadCosts(t.TempDir()), nil), "reports")
	for _, want := range []string{"cell time", "0 cell(s) from the median", "kubeovn-argocd", "kargo-argocd", "\n  8 "} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
}

// An unknown variant of a scenario is refused where it enters, naming that
// scenario's variants, before anything starts.
func TestCheckRefusesAnUnknownVariantNamingTheScenarios(t *testing.T) {
	cat, data := loadMatrix(t)
	err := run(context.Background(), cat, data, "check", []string{"-scenario", "kyverno-argocd", "-variant", "nope"})
	want := `unknown variant "nope" (valid: kyverno-argocd: bug, argocd-upgrade, hook-disabled, minimal)`
	if !runner.IsBadInput(err) || err.Error() != want {
		t.Fatalf("got %v, want bad input %q", err, want)
	}
}

func TestCheckRefusesAnUnobtainableComponentRelease(t *testing.T) {
	cat, data := loadMatrix(t)
	fakeSources(t, cat)
	err := run(context.Background(), cat, data, "check", []string{"-scenario", "knative-argocd", "-variant", "bug", "-version", "v0.51.0", "-mode", "offline"})
	if !runner.IsBadInput(err) || !strings.Contains(err.Error(), "not obtainable here") || !strings.Contains(err.Error(), "knative.dev/pkg") {
		t.Fatalf("want a bad input naming why v0.51.0 is not obtainable, got %v", err)
	}
}

// An expectation claims only cells that can run: where it names a component
// version and a Kubernetes version below that version's own minimum, the
// cell is SKIPPED before any cluster, so an outcome expected there was never
// measured (seen: knative v0.47.1 on v1.30.4 listed as REPRODUCED beside the
// v1.30.4 runs of v0.42.2 and v0.43.0, which made run 20261126-070727 exit 1).
func TestRealMatrixExpectsNothingOfASkippedCell(t *testing.T) {
	cat, data := loadMatrix(t)
	for _, e := range data.Expectations {
		if e.Expected == report.Skipped || e.ComponentVersion == "" || e.Kubernetes == "" {
			continue
		}
		s, err := data.Scenario(e.Scenario)
		if err != nil {
			t.Fatal(err) // matrix.Parse refuses an expectation of no scenario
		}
		comp, err := cat.Component(s.Component)
		if err != nil {
			continue // a scenario without a component of the catalog
		}
		for _, version := range matrix.ParseList(e.ComponentVersion) {
			for _, kube := range matrix.ParseList(e.Kubernetes) {
				if why := comp.Unsupported(version, kube); why != "" {
					t.Errorf("%s %s expects %s on ArgoCD %s, Kubernetes %s, %s %s: that cell is SKIPPED (%s)",
						e.Scenario, e.Variant, e.Expected, e.ArgoCD, kube, s.Component, version, why)
				}
			}
		}
	}
}
