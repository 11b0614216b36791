package route

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// hooks is a scenario like longname-hooks-argocd: a bug, its minimal form and
// a mitigation, on one component version.
var hooks = matrix.Scenario{
	Name: "hooks", Component: "openkruise", Upstream: "https://github.com/argoproj/argo-cd/issues/27527",
	Variants: []matrix.Variant{
		{Name: matrix.Bug, ComponentVersions: []string{"v1.8.3", "v1.9.0"}},
		{Name: matrix.Minimal},
		{Name: "short-name", Mitigates: true, ComponentVersions: []string{"v1.8.3"}},
	},
}

var offline = true

// measured is an expectation of hooks measured offline on Kubernetes
// v1.33.13 with chart v1.8.3, in run 20261127-000000.
func measured(variant, argocd string, outcome report.Outcome) matrix.Expectation {
	cv := "v1.8.3"
	if variant == matrix.Minimal {
		cv = ""
	}
	return matrix.Expectation{Scenario: "hooks", Variant: variant, ArgoCD: argocd, ComponentVersion: cv,
		Kubernetes: "v1.33.13", Offline: &offline, Expected: outcome, Runs: []string{"20261127-000000"}}
}

// on returns e measured on other Kubernetes versions, component versions
// or runs: the fields of what that are set.
func on(e matrix.Expectation, what matrix.Expectation) matrix.Expectation {
	if what.Kubernetes != "" {
		e.Kubernetes = what.Kubernetes
	}
	if what.ComponentVersion != "" {
		e.ComponentVersion = what.ComponentVersion
	}
	if what.Runs != nil {
		e.Runs = what.Runs
	}
	return e
}

// published are the releases of the lines the tests use, every patch.
func published() []catalog.Release {
	var rels []catalog.Release
	for _, line := range []struct {
		minor string
		last  int
	}{{"v2.14", 11}, {"v3.4", 7}, {"v3.5", 1}} {
		for patch := range line.last + 1 {
			rels = append(rels, catalog.MustRelease(fmt.Sprintf("%s.%d", line.minor, patch)))
		}
	}
	return rels
}

// summary is a change in one line: "bug v1.8.3 v1.33.13: REPRODUCED v3.4.2
// -> NOT_REPRODUCED v3.4.3 exact".
func summary(c Change) string {
	s := fmt.Sprintf("%s %s %s: %s %s -> %s %s", c.Variant, c.ComponentVersion, c.Kubernetes, c.BeforeOutcome, c.Before, c.AfterOutcome, c.After)
	if c.Exact {
		s += " exact"
	}
	return strings.Join(strings.Fields(s), " ")
}

func TestRoute(t *testing.T) {
	const (
		r  = report.Reproduced
		nr = report.NotReproduced
	)
	for _, tc := range []struct {
		name         string
		expectations []matrix.Expectation
		from, to     string
		changes      []string
		measured     []string
	}{{
		name: "a change exactly at a patch",
		expectations: []matrix.Expectation{
			measured("bug", "v3.4.2", r), measured("bug", "v3.4.3,v3.5.1", nr),
		},
		from: "v3.4.2", to: "v3.4.3",
		changes: []string{"bug v1.8.3 v1.33.13: REPRODUCED v3.4.2 -> NOT_REPRODUCED v3.4.3 exact"},
	}, {
		name: "the same change on a path that holds it",
		expectations: []matrix.Expectation{
			measured("bug", "v3.4.2", r), measured("bug", "v3.4.3", nr),
		},
		from: "v3.4.0", to: "v3.4.7",
		changes: []string{"bug v1.8.3 v1.33.13: REPRODUCED v3.4.2 -> NOT_REPRODUCED v3.4.3 exact"},
	}, {
		name: "a change at FROM: the user already has it",
		expectations: []matrix.Expectation{
			measured("bug", "v3.4.2", r), measured("bug", "v3.4.3,v3.4.7", nr),
		},
		from: "v3.4.3", to: "v3.4.7",
		measured: []string{"hooks/bug openkruise v1.8.3, Kubernetes v1.33.13, offline: NOT_REPRODUCED on v3.4.3, v3.4.7"},
	}, {
		name: "a change between two measured releases, unmeasured ones between",
		expectations: []matrix.Expectation{
			measured("bug", "v2.14.3", r), measured("bug", "v2.14.11", nr),
		},
		from: "v2.14.3", to: "v2.14.11",
		changes: []string{"bug v1.8.3 v1.33.13: REPRODUCED v2.14.3 -> NOT_REPRODUCED v2.14.11"},
	}, {
		name: "a change whose span passes FROM",
		expectations: []matrix.Expectation{
			measured("bug", "v2.14.3", r), measured("bug", "v2.14.11", nr),
		},
		from: "v2.14.5", to: "v2.14.11",
		changes: []string{"bug v1.8.3 v1.33.13: REPRODUCED v2.14.3 -> NOT_REPRODUCED v2.14.11"},
	}, {
		name: "a change around the whole path: nothing measured on it",
		expectations: []matrix.Expectation{
			measured("bug", "v2.14.3", r), measured("bug", "v2.14.11", nr),
		},
		from: "v2.14.5", to: "v2.14.9",
	}, {
		name: "no change: what was measured on the path",
		expectations: []matrix.Expectation{
			measured("bug", "v2.14.3,v2.14.7,v2.14.11", nr), measured("short-name", "v2.14.11", report.Mitigated),
			measured("minimal", "v2.14.3", nr),
		},
		from: "v2.14.5", to: "v2.14.11",
		measured: []string{
			"hooks/bug openkruise v1.8.3, Kubernetes v1.33.13, offline: NOT_REPRODUCED on v2.14.7, v2.14.11",
			"hooks/short-name openkruise v1.8.3, Kubernetes v1.33.13, offline: MITIGATED on v2.14.11",
		},
	}, {
		name: "a path crossing lines past a change below FROM",
		expectations: []matrix.Expectation{
			measured("bug", "v3.4.2", r), measured("bug", "v3.4.3,v3.5.1", nr),
		},
		from: "v3.4.7", to: "v3.5.1",
		measured: []string{"hooks/bug openkruise v1.8.3, Kubernetes v1.33.13, offline: NOT_REPRODUCED on v3.5.1"},
	}, {
		name: "a path crossing majors and lines holds every change on it",
		expectations: []matrix.Expectation{
			measured("bug", "v2.14.11", nr), measured("bug", "v3.4.2", r), measured("bug", "v3.4.3,v3.5.1", nr),
		},
		from: "v2.14.11", to: "v3.5.1",
		changes: []string{
			"bug v1.8.3 v1.33.13: NOT_REPRODUCED v2.14.11 -> REPRODUCED v3.4.2",
			"bug v1.8.3 v1.33.13: REPRODUCED v3.4.2 -> NOT_REPRODUCED v3.4.3 exact",
		},
	}, {
		name: "RACE is an outcome of its own",
		expectations: []matrix.Expectation{
			measured("short-name", "v2.14.11", report.Race), measured("short-name", "v3.4.7", report.Race),
			measured("short-name", "v3.5.1", report.Mitigated),
		},
		from: "v2.14.11", to: "v3.5.1",
		changes: []string{"short-name v1.8.3 v1.33.13: RACE v3.4.7 -> MITIGATED v3.5.1"},
	}, {
		name: "component versions are not compared",
		expectations: []matrix.Expectation{
			measured("bug", "v3.4.2", r), on(measured("bug", "v3.4.3", nr), matrix.Expectation{ComponentVersion: "v1.9.0"}),
		},
		from: "v3.4.2", to: "v3.4.3",
		measured: []string{"hooks/bug openkruise v1.9.0, Kubernetes v1.33.13, offline: NOT_REPRODUCED on v3.4.3"},
	}, {
		name: "one change on two Kubernetes versions is one row",
		expectations: []matrix.Expectation{
			on(measured("bug", "v3.4.2", r), matrix.Expectation{Kubernetes: "v1.30.4,v1.33.13"}),
			on(measured("bug", "v3.4.3", nr), matrix.Expectation{Kubernetes: "v1.33.13"}),
			on(measured("bug", "v3.4.3", nr), matrix.Expectation{Kubernetes: "v1.30.4", Runs: []string{"20261127-111111"}}),
		},
		from: "v3.4.2", to: "v3.4.3",
		changes: []string{"bug v1.8.3 v1.30.4,v1.33.13: REPRODUCED v3.4.2 -> NOT_REPRODUCED v3.4.3 exact"},
	}, {
		name: "SKIPPED measures nothing; the first expectation wins",
		expectations: []matrix.Expectation{
			measured("bug", "v3.4.2", r), measured("bug", "v3.4.2,v3.4.3", report.Skipped), measured("bug", "v3.4.2", nr),
		},
		from: "v3.4.0", to: "v3.4.7",
		measured: []string{"hooks/bug openkruise v1.8.3, Kubernetes v1.33.13, offline: REPRODUCED on v3.4.2"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			data := &matrix.Data{Scenarios: []matrix.Scenario{hooks}, Expectations: tc.expectations}
			route, err := Of(data, published(), catalog.MustRelease(tc.from), catalog.MustRelease(tc.to))
			if err != nil {
				t.Fatal(err)
			}
			var changes []string
			for _, c := range route.Changes {
				changes = append(changes, summary(c))
			}
			if !slices.Equal(changes, tc.changes) {
				t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(changes, "\n"), strings.Join(tc.changes, "\n"))
			}
			if !slices.Equal(route.Measured, tc.measured) {
				t.Errorf("measured:\n%s\nwant:\n%s", strings.Join(route.Measured, "\n"), strings.Join(tc.measured, "\n"))
			}
		})
	}
}

// A change carries its runs, the mitigations measured at its ends and the
// scenario's upstream issue, and Markdown shows them in its row.
func TestRouteChangeDetails(t *testing.T) {
	data := &matrix.Data{Scenarios: []matrix.Scenario{hooks}, Expectations: []matrix.Expectation{
		on(measured("bug", "v3.4.2", report.Reproduced), matrix.Expectation{Runs: []string{"20261127-031611"}}),
		on(measured("bug", "v3.4.3", report.NotReproduced), matrix.Expectation{Runs: []string{"20261127-041835"}}),
		measured("short-name", "v3.4.2", report.Mitigated),
		measured("minimal", "v3.4.2", report.Reproduced), measured("minimal", "v3.4.7", report.NotReproduced),
	}}
	route, err := Of(data, published(), catalog.MustRelease("v3.4.2"), catalog.MustRelease("v3.4.3"))
	if err != nil {
		t.Fatal(err)
	}
	if len(route.Changes) != 2 {
		t.Fatalf("changes = %v, want bug's and minimal's", route.Changes)
	}
	c := route.Changes[0]
	if want := []string{"20261127-031611", "20261127-041835"}; !slices.Equal(c.Runs, want) {
		t.Errorf("runs = %v, want %v", c.Runs, want)
	}
	if want := []string{"short-name MITIGATED on v3.4.2"}; !slices.Equal(c.Mitigations, want) {
		t.Errorf("mitigations = %v, want %v", c.Mitigations, want)
	}
	if c.Upstream != hooks.Upstream || c.Component != "openkruise" {
		t.Errorf("upstream, component = %q, %q", c.Upstream, c.Component)
	}
	md := route.Markdown()
	for _, want := range []string{
		"## Measured changes on the path v3.4.2 -> v3.4.3\n",
		"| hooks | bug | openkruise v1.8.3 | v1.33.13, offline | REPRODUCED on v3.4.2 | NOT_REPRODUCED on v3.4.3 | at v3.4.3 | 20261127-031611, 20261127-041835 | short-name MITIGATED on v3.4.2 | " + hooks.Upstream + " |",
		"| hooks | minimal | - | v1.33.13, offline | REPRODUCED on v3.4.2 | NOT_REPRODUCED on v3.4.7 | between v3.4.2 and v3.4.7; may lie after v3.4.3, off the path |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// A path without a change says so and lists what was measured on it, or
// that nothing was.
func TestRouteMarkdownWithoutChange(t *testing.T) {
	data := &matrix.Data{Scenarios: []matrix.Scenario{hooks}, Expectations: []matrix.Expectation{
		measured("bug", "v3.4.3,v3.5.1", report.NotReproduced),
	}}
	for _, tc := range []struct{ from, to, want string }{
		{"v3.4.7", "v3.5.1", "The suite measured no behaviour change on this path (the expectations of suites/matrix.yaml). Measured on it:\n\n" +
			"- hooks/bug openkruise v1.8.3, Kubernetes v1.33.13, offline: NOT_REPRODUCED on v3.5.1\n"},
		{"v2.14.3", "v2.14.11", "Nothing was measured on it either: no expectation names a release after v2.14.3 up to v2.14.11.\n"},
	} {
		route, err := Of(data, published(), catalog.MustRelease(tc.from), catalog.MustRelease(tc.to))
		if err != nil {
			t.Fatal(err)
		}
		if md := route.Markdown(); !strings.Contains(md, tc.want) {
			t.Errorf("%s -> %s: Markdown lacks %q:\n%s", tc.from, tc.to, tc.want, md)
		}
	}
}

func TestRouteRefusesADowngrade(t *testing.T) {
	data := &matrix.Data{Scenarios: []matrix.Scenario{hooks}}
	if _, err := Of(data, nil, catalog.MustRelease("v3.5.1"), catalog.MustRelease("v3.4.7")); err == nil {
		t.Error("a path from v3.5.1 to v3.4.7 must be refused")
	}
}
