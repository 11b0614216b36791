package upgrade

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
)

// METRICS as a user gives it: empty is the catalog's metrics-server, which
// the plan names, prebuilds and each cell installs before its Application;
// none is none; anything else is one line naming the choices, before
// anything is made.
func TestResolveMetrics(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	w := appcell.Where{CacheDir: t.TempDir()}
	o := spec.Options{From: "v3.4.7", To: "v3.5.1", Apps: "../../suites/upgrade-check/smoke-apps.yaml"}
	s, err := o.Resolve(context.Background(), cat, w)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Metrics.On() || s.Metrics.Version != "v0.9.0" || strings.Contains(s.Command, "METRICS") {
		t.Errorf("METRICS empty: %+v, command %s", s.Metrics, s.Command)
	}
	data, code := Plan(s)
	sc := data.Scenarios[0]
	if !strings.Contains(sc.Summary, "On a cluster with metrics-server v0.9.0,") || !slices.Equal(sc.Builds, []string{"metrics-server@v0.9.0"}) {
		t.Errorf("summary %q, builds %q", sc.Summary, sc.Builds)
	}
	c := matrix.Cell{Scenario: sc, Variant: sc.Variants[0], ArgoCD: s.From, Upgrades: []catalog.Release{s.To}}
	names := code[spec.Scenario].Feature(c).Names()
	install, create := slices.Index(names, "the cluster's metrics-server v0.9.0"), slices.IndexFunc(names, func(n string) bool { return strings.HasPrefix(n, "create application") })
	if install < 0 || create < 0 || install > create {
		t.Errorf("metrics-server (step %d) not installed before the Application is created (step %d):\n%s", install, create, strings.Join(names, "\n"))
	}

	o.Metrics = "none"
	if s, err = o.Resolve(context.Background(), cat, w); err != nil {
		t.Fatal(err)
	}
	data, code = Plan(s)
	sc = data.Scenarios[0]
	if s.Metrics.On() || !strings.Contains(s.Command, "METRICS=none") || len(sc.Builds) > 0 || !strings.Contains(sc.Summary, "no metrics-server (METRICS=none)") {
		t.Errorf("METRICS=none: %+v, command %s, builds %q, summary %q", s.Metrics, s.Command, sc.Builds, sc.Summary)
	}
	c = matrix.Cell{Scenario: sc, Variant: sc.Variants[0], ArgoCD: s.From, Upgrades: []catalog.Release{s.To}}
	if names := code[spec.Scenario].Feature(c).Names(); !slices.Contains(names, "the cluster's metrics-server: none (METRICS=none)") {
		t.Errorf("METRICS=none: no step saying so:\n%s", strings.Join(names, "\n"))
	}

	o.Metrics = "yes"
	if _, err := o.Resolve(context.Background(), cat, w); err == nil || !strings.HasPrefix(err.Error(), `METRICS "yes": want none`) {
		t.Errorf("METRICS=yes: %v", err)
	}
}
