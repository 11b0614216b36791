package suites

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/route"
)

// The route table read from matrix.yaml holds the two changes the suite
// measured at a patch: longname-hooks-argocd's fix at v3.4.3 and
// kyverno-argocd's at v2.14.4 (Kyverno v1.14.0, Kubernetes v1.33.13); a path
// past v3.4.3 does not hold the first. go test -v prints each route.
func TestRouteOfTheMatrix(t *testing.T) {
	data, err := Matrix()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	known, err := route.Patches(cat, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from, to string
		want     string // a change, upgradeSummary's way
		notWant  string // a scenario/variant with no change on the path
		measured string // what Measured says of it
	}{
		{from: "v3.4.2", to: "v3.4.3", want: "longname-hooks-argocd/bug v1.8.3 v1.33.13: REPRODUCED v3.4.2 -> NOT_REPRODUCED v3.4.3 exact"},
		{from: "v2.14.3", to: "v2.14.4", want: "kyverno-argocd/bug v1.14.0 v1.33.13: REPRODUCED v2.14.3 -> NOT_REPRODUCED v2.14.4 exact"},
		{from: "v3.3.14", to: "v3.4.7", want: "openkruise-guard-argocd/bug v1.8.3 v1.33.13: NOT_REPRODUCED v3.3.14 -> REPRODUCED v3.4.0 exact"},
		{from: "v3.4.7", to: "v3.5.1", notWant: "longname-hooks-argocd/bug",
			measured: "longname-hooks-argocd/bug openkruise v1.8.3, Kubernetes v1.33.13, offline: NOT_REPRODUCED on v3.5.1"},
	} {
		route, err := route.Of(data, known, catalog.MustRelease(tc.from), catalog.MustRelease(tc.to))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("\n%s", route.Markdown())
		var got []string
		for _, c := range route.Changes {
			got = append(got, upgradeSummary(c))
			if tc.notWant != "" && c.Scenario+"/"+c.Variant == tc.notWant {
				t.Errorf("%s -> %s: %s lies below FROM, not on the path: %s", tc.from, tc.to, tc.notWant, upgradeSummary(c))
			}
		}
		if tc.want != "" && !slices.Contains(got, tc.want) {
			t.Errorf("%s -> %s: changes %q lack %q", tc.from, tc.to, got, tc.want)
		}
		if tc.measured != "" && !slices.Contains(route.Measured, tc.measured) {
			t.Errorf("%s -> %s: measured %q lack %q", tc.from, tc.to, route.Measured, tc.measured)
		}
	}
}

// patches are every patch release of the lines the test's paths cross, as
// upstream published them (bisect.Releases lists them from the module proxy).
// upgradeSummary is a change in one line: "kyverno-argocd/bug v1.14.0
// v1.33.13: REPRODUCED v2.14.3 -> NOT_REPRODUCED v2.14.4 exact".
func upgradeSummary(c route.Change) string {
	s := fmt.Sprintf("%s/%s %s %s: %s %s -> %s %s", c.Scenario, c.Variant, c.ComponentVersion, c.Kubernetes, c.BeforeOutcome, c.Before, c.AfterOutcome, c.After)
	if c.Exact {
		s += " exact"
	}
	return s
}
