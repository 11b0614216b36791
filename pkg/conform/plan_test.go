package conform

import (
	"context"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/appcell/appcelltest"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

func TestPlanIsTheScenarioConformOfTheChart(t *testing.T) {
	s := renderTestChart(t)
	s.Checks = []string{"crd-diff", "self-blocking-webhook"}
	s.Expect = map[string]report.Outcome{"self-blocking-webhook": report.Reproduced}
	s.ExpectWhy = "suites/conform.yaml kruise-unlabelled"
	s.Command = "make conform CHART=c NAMESPACE=team"
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, code, err := s.Plan(cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := code.Check(data); err != nil {
		t.Fatalf("the code and the data agree: %v", err)
	}
	cells, err := data.Plan(cat, matrix.Selection{Scenarios: []string{Scenario}})
	if err != nil || len(cells) != 2 {
		t.Fatalf("cells: %v, %v", cells, err)
	}
	newest := cat.ArgoCD.Default[len(cat.ArgoCD.Default)-1]
	c := cells[1]
	rc := c.Report()
	if rc.Scenario != "conform" || rc.Variant != "self-blocking-webhook" || rc.Component != "c" || rc.ComponentVersion != "1.0.0" || rc.ArgoCD != newest {
		t.Errorf("cell: %+v (the newest release of the default axis is %s)", rc, newest)
	}
	if got := c.Replay(); got != "make conform CHART=c NAMESPACE=team CHECKS=self-blocking-webhook ARGOCD="+newest+" KUBERNETES="+cat.Kubernetes.Default {
		t.Errorf("replay: %s", got)
	}
	if want, why := data.Expected(c, true); want != report.Reproduced || why != s.ExpectWhy {
		t.Errorf("expected: %s (%s)", want, why)
	}
	if want, why := data.Expected(cells[0], true); want != report.NotReproduced || why != Clean {
		t.Errorf("a chart passes a check unless told otherwise: %s (%s)", want, why)
	}
	if c.Variant.Mitigation() || !strings.Contains(c.Variant.Summary, "REPRODUCED when") {
		t.Errorf("a check is judged REPRODUCED or NOT_REPRODUCED, and says what REPRODUCED means: %+v", c.Variant)
	}
	cells, err = data.Plan(cat, matrix.Selection{Scenarios: []string{Scenario}, ArgoCD: []string{"v2.14.3", "v2.14.11"}})
	if err != nil || len(cells) != 4 || cells[0].ArgoCD.String() != "v2.14.3" {
		t.Errorf("ARGOCD= chooses the releases: %v, %v", cells, err)
	}
}

// renderTestChart is chart c 1.0.0 resolved as release rel into team.
func renderTestChart(t *testing.T) *Spec {
	t.Helper()
	dir := t.TempDir()
	appcelltest.WriteChart(t, dir, "c", "c", "1.0.0", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
	s, err := Options{Chart: "c", Release: "rel", Namespace: "team"}.Resolve(context.Background(), appcell.Where{Repo: dir, CacheDir: t.TempDir(), Kubernetes: "v1.33.13"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
