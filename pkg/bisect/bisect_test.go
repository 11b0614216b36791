package bisect

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/sources"
)

func TestReleases(t *testing.T) {
	published := map[string]bool{"v2.13.3": true, "v2.13.4": true, "v2.14.0": true, "v2.14.1": true, "v2.14.2": true}
	probe := func(rel catalog.Release) error {
		tag := rel.String()
		switch {
		case tag == "v2.14.1":
			return errors.New("not obtainable from the module proxy: This module version is not available")
		case published[tag]:
			return nil
		}
		return fmt.Errorf("%s: %w", tag, ErrNoRelease)
	}
	cat, _ := catalog.Load()
	release := catalog.MustRelease
	rels, unobtainable, err := Releases(cat, release("v2.13.3"), release("v2.14.2"), probe)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, r.String())
	}
	if want := []string{"v2.13.3", "v2.13.4", "v2.14.0", "v2.14.2"}; !slices.Equal(got, want) {
		t.Fatalf("Releases = %v, want %v", got, want)
	}
	// a release the proxy refuses exists: listed apart, never taken for "no such release"
	if len(unobtainable) != 1 || unobtainable["v2.14.1"] == "" {
		t.Fatalf("unobtainable = %v, want v2.14.1 with its reason", unobtainable)
	}
	if _, _, err := Releases(cat, release("v2.14.2"), release("v2.13.3"), nil); err == nil {
		t.Fatal("a reversed range must be an error")
	}
	s := &Search{Releases: got, Runs: map[string]report.Outcome{"v2.13.3": report.NotReproduced, "v2.14.2": report.NotReproduced}, Unobtainable: unobtainable}
	s.Settle()
	if !strings.Contains(s.Verdict, "not obtainable here, so not run: v2.14.1") {
		t.Errorf("the verdict must name the release it could not run: %q", s.Verdict)
	}
}

// kyverno-argocd's measured island: only v2.14.3 holds the sync.
var island = map[string]report.Outcome{"v2.14.2": report.NotReproduced, "v2.14.3": report.Reproduced,
	"v2.14.4": report.NotReproduced, "v2.14.5": report.NotReproduced, "v2.14.6": report.NotReproduced,
	"v2.14.7": report.NotReproduced, "v2.14.8": report.NotReproduced, "v2.14.9": report.NotReproduced,
	"v2.14.10": report.NotReproduced, "v2.14.11": report.NotReproduced}

func releases() []string {
	var r []string
	for tag := range island {
		r = append(r, tag)
	}
	slices.SortFunc(r, func(a, b string) int { return len(a)*100 + int(a[len(a)-1]) - len(b)*100 - int(b[len(b)-1]) })
	return r
}

func TestBisectSaysWhatItDidNotRun(t *testing.T) {
	rel := releases()
	s, err := Find("kyverno-argocd", "bug", rel, false, nil, func(tag string) (report.Outcome, error) { return island[tag], nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Changes) != 0 {
		t.Fatalf("equal ends: bisect runs no middle release, yet reported changes %v", s.Changes)
	}
	if len(s.NotRun) != len(rel)-2 || !strings.Contains(s.Verdict, "island") || !strings.Contains(s.Verdict, "v2.14.3") {
		t.Errorf("the verdict must name the releases not run and the island risk: %q", s.Verdict)
	}
}

func TestSweepFindsBothFlipsAroundAnIsland(t *testing.T) {
	s, err := Find("kyverno-argocd", "bug", releases(), true, nil, func(tag string) (report.Outcome, error) { return island[tag], nil })
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{"v2.14.2", report.NotReproduced, "v2.14.3", report.Reproduced}, {"v2.14.3", report.Reproduced, "v2.14.4", report.NotReproduced}}
	if !slices.Equal(s.Changes, want) || len(s.NotRun) != 0 {
		t.Fatalf("sweep: changes %v, not run %v; want %v", s.Changes, s.NotRun, want)
	}
}

func TestBisectFindsEveryBoundaryBetweenDifferentEnds(t *testing.T) {
	rel := []string{"v1.0.0", "v1.0.1", "v1.0.2", "v1.0.3", "v1.0.4", "v1.0.5"}
	outcome := map[string]report.Outcome{"v1.0.0": report.NotReproduced, "v1.0.1": report.NotReproduced, "v1.0.2": report.NotReproduced,
		"v1.0.3": report.Reproduced, "v1.0.4": report.Reproduced, "v1.0.5": report.Reproduced}
	s, err := Find("s", "bug", rel, false, nil, func(tag string) (report.Outcome, error) { return outcome[tag], nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Changes) != 1 || s.Changes[0].Last != "v1.0.2" || s.Changes[0].First != "v1.0.3" {
		t.Fatalf("changes = %v", s.Changes)
	}
	if len(s.Runs) >= len(rel) {
		t.Errorf("bisect ran %d of %d releases: no saving", len(s.Runs), len(rel))
	}
}

func TestAnInterruptedSearchKeepsWhatItRan(t *testing.T) {
	rel := []string{"v2.14.2", "v2.14.3", "v2.14.4"}
	s, err := Find("kyverno-argocd", "bug", rel, true, nil, func(tag string) (report.Outcome, error) {
		if tag == "v2.14.3" {
			return "", errors.New("interrupted by interrupt")
		}
		return island[tag], nil
	})
	if err == nil || s.Runs["v2.14.2"] != report.NotReproduced || len(s.NotRun) != 2 ||
		!strings.HasPrefix(s.Verdict, "incomplete (") || !strings.Contains(s.Verdict, "not run: v2.14.3 v2.14.4") {
		t.Fatalf("err %v, search %+v", err, s)
	}
}

// ArgoCD v2.14.2..v2.14.11 grouped by the gitops-engine their go.mod pins
// (read from the module proxy on 2026-11-22).
var engine = map[string]string{"v2.14.2": "c19f8cfa4d27", "v2.14.3": "65db274b8d73",
	"v2.14.4": "43fce7ce19f1", "v2.14.5": "43fce7ce19f1", "v2.14.6": "43fce7ce19f1",
	"v2.14.7": "0fa7514ea01d", "v2.14.8": "0fa7514ea01d",
	"v2.14.9": "6d3cf122b03f", "v2.14.10": "6d3cf122b03f", "v2.14.11": "6d3cf122b03f"}

func TestGroupedBisectFindsBothFlipsAroundTheIsland(t *testing.T) {
	var ran []string
	g := &Grouping{By: "gitops-engine pin", Key: func(tag string) (string, error) { return engine[tag], nil }}
	s, err := Find("kyverno-argocd", "bug", releases(), false, g, func(tag string) (report.Outcome, error) {
		ran = append(ran, tag)
		return island[tag], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"v2.14.2", "v2.14.3", "v2.14.4", "v2.14.7", "v2.14.9", "v2.14.11"}; !slices.Equal(ran, want) {
		t.Errorf("ran %v, want the ends and the first release of each group %v", ran, want)
	}
	if len(s.Changes) != 2 || s.Changes[0].First != "v2.14.3" || s.Changes[1].First != "v2.14.4" {
		t.Fatalf("changes %v, want REPRODUCED from v2.14.3 and NOT_REPRODUCED from v2.14.4", s.Changes)
	}
	if !strings.Contains(s.Verdict, "not a measurement") || !strings.Contains(s.Verdict, "v2.14.5 v2.14.6 v2.14.8 v2.14.10") {
		t.Errorf("the verdict must say which releases the grouping stood in for: %q", s.Verdict)
	}
}

func TestGroupingThatFailsFallsBackToTheEnds(t *testing.T) {
	g := &Grouping{By: "pin", Key: func(string) (string, error) { return "", errors.New("proxy down") }}
	s, err := Find("kyverno-argocd", "bug", releases(), false, g, func(tag string) (report.Outcome, error) { return island[tag], nil })
	if err == nil || !strings.Contains(s.Verdict, "incomplete") {
		t.Fatalf("a grouping that could not be read must leave the search incomplete, not quietly ungrouped: %v %q", err, s.Verdict)
	}
}

// A grouped search that stopped early stands in for no group it did not run.
func TestGroupedBisectThatStoppedSaysWhatItDidNotCover(t *testing.T) {
	g := &Grouping{By: "gitops-engine pin", Key: func(tag string) (string, error) { return engine[tag], nil }}
	s, err := Find("kyverno-argocd", "bug", releases(), false, g, func(tag string) (report.Outcome, error) {
		if tag == "v2.14.3" {
			return "", errors.New("ERROR: cleanup timed out")
		}
		return island[tag], nil
	})
	if err == nil || !strings.Contains(s.Verdict, "incomplete") {
		t.Fatalf("err %v, verdict %q", err, s.Verdict)
	}
	if strings.Contains(s.Verdict, "v2.14.3 v2.14.4") && strings.Contains(s.Verdict, "each grouped with a release that was run by") &&
		!strings.Contains(s.Verdict, "island") {
		t.Errorf("releases whose group was never run must not be said to be stood in for: %q", s.Verdict)
	}
	if !strings.Contains(s.Verdict, "not run: v2.14.3") || !strings.Contains(s.Verdict, "island") {
		t.Errorf("the verdict must name v2.14.3 as not run, with the island risk: %q", s.Verdict)
	}
}

// A range across a major version runs through the older major's last line
// (its module, argo-cd/v2) into the newer one's (argo-cd/v3). The proxy is
// modelled as this machine's: 403 for a tag it lacks, published or not. A
// refused tag before a later release of its line exists and is listed apart;
// after the line's last it is perhaps unpublished; a line of which nothing
// is known ends the major. A release built from a source tree the user did
// not provide is listed apart too, each reason once in the verdict.
func TestReleasesAcrossAMajorVersion(t *testing.T) {
	served := map[string]bool{"v2.14.21": true, "v3.0.0": true, "v3.0.12": true, "v3.1.0": true, "v3.2.0": true, "v3.3.0": true,
		"v3.3.1": true, "v3.4.0": true, "v3.4.2": true, "v3.4.4": true, "v3.4.6": true, "v3.4.7": true, "v3.5.0": true, "v3.5.1": true}
	var asked []string
	probe := func(rel catalog.Release) error {
		tag := rel.String()
		asked = append(asked, tag)
		switch {
		case !served[tag]:
			return fmt.Errorf("%w (403 Forbidden)", ErrRefused)
		case rel.FromSources() && tag != "v3.4.7":
			return errors.New("no source tree in ARGOCD_SOURCES=/src")
		}
		return nil
	}
	cat, _ := catalog.Load()
	rels, unobtainable, err := Releases(cat, catalog.MustRelease("v2.14.21"), catalog.MustRelease("v3.5.1"), probe)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rels {
		got = append(got, r.String()+" "+r.Module()[len("github.com/argoproj/"):])
	}
	want := []string{"v2.14.21 argo-cd/v2", "v3.0.0 argo-cd/v3", "v3.0.12 argo-cd/v3", "v3.1.0 argo-cd/v3", "v3.2.0 argo-cd/v3",
		"v3.4.7 argo-cd/v3", "v3.5.1 argo-cd/v3"}
	if !slices.Equal(got, want) {
		t.Fatalf("Releases = %v, want %v", got, want)
	}
	if slices.Contains(asked, "v2.16.0") || !slices.Contains(asked, "v2.15.0") {
		t.Errorf("v2's lines end at the first of which nothing is known (2.15), asked %v", asked)
	}
	if _, ok := unobtainable["v2.15.0"]; ok {
		t.Errorf("a line that does not exist is not listed: %v", unobtainable["v2.15.0"])
	}
	tags := make([]string, 0, len(got))
	for _, r := range rels {
		tags = append(tags, r.String())
	}
	s := &Search{Releases: tags, Runs: map[string]report.Outcome{}, Unobtainable: unobtainable}
	s.Settle()
	for _, want := range []string{
		"v3.0.1..v3.0.11 v3.4.1 v3.4.3 v3.4.5 (refused by the module proxy (403 Forbidden))",
		"v2.14.22..v2.14.40 v3.0.13..v3.0.40 v3.1.1..v3.1.40 v3.2.1..v3.2.40 v3.3.2..v3.3.40 v3.4.8..v3.4.40 (refused by the module proxy (403 Forbidden); no later patch of its line is known: perhaps never published)",
		"v3.3.0..v3.3.1 v3.4.0 v3.4.2 v3.4.4 v3.4.6 v3.5.0 (no source tree in ARGOCD_SOURCES=/src)",
	} {
		if !strings.Contains(s.Verdict, want) {
			t.Errorf("the verdict lacks %q: %q", want, s.Verdict)
		}
	}
}

// The engine a release pins: the gitops-engine module up to v3.2, then
// ArgoCD's own nested module, which go.mod replaces with the tree's
// directory: nothing to tell two releases apart by, each its own group.
func TestEngineKey(t *testing.T) {
	gomods := map[string]string{
		"v2.14.11": "require github.com/argoproj/gitops-engine v0.7.1-0.20250328191959-6d3cf122b03f\n",
		// 3.3.x pins one pseudo-version in every patch (v3.3.10 and v3.3.14
		// go.mod), under a replace with the tree's directory: the pin says
		// nothing, the code is in the tree
		"v3.3.10": "require github.com/argoproj/gitops-engine v0.7.1-0.20250908182407-97ad5b59a627\n" +
			"replace github.com/argoproj/gitops-engine => ./gitops-engine\n",
		"v3.3.14": "require github.com/argoproj/gitops-engine v0.7.1-0.20250908182407-97ad5b59a627\n" +
			"replace github.com/argoproj/gitops-engine => ./gitops-engine\n",
		"v3.4.7": "require github.com/argoproj/argo-cd/gitops-engine v0.7.1-0.20250908182407-97ad5b59a627\n" +
			"replace github.com/argoproj/argo-cd/gitops-engine => ./gitops-engine\n",
		"v3.5.1": "require github.com/argoproj/argo-cd/gitops-engine v0.7.1-0.20250908182407-97ad5b59a627\n" +
			"replace github.com/argoproj/argo-cd/gitops-engine => ./gitops-engine\n",
	}
	key := func(tag string) string {
		k, err := EngineKey(func(dep string) (string, error) { return sources.RequiredVersion([]byte(gomods[tag]), dep) }, tag)
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		return k
	}
	if k := key("v2.14.11"); k != "v0.7.1-0.20250328191959-6d3cf122b03f" {
		t.Errorf("v2.14.11: %q", k)
	}
	if a, b := key("v3.4.7"), key("v3.5.1"); a == b || !strings.Contains(a, "./gitops-engine") {
		t.Errorf("nested engines must be groups of their own: %q %q", a, b)
	}
	if a, b := key("v3.3.10"), key("v3.3.14"); a == b || !strings.Contains(a, "./gitops-engine") {
		t.Errorf("3.3.x's identical pin under a replace must not make one group: %q %q", a, b)
	}
	if _, err := EngineKey(func(string) (string, error) { return "", errors.New("go.mod does not require it") }, "v9.0.0"); err == nil {
		t.Error("no engine at all must be an error")
	}
}

func TestBisectStepsOverReleasesThatDoNotBuild(t *testing.T) {
	rel := []string{"v1.0.0", "v1.0.1", "v1.0.2", "v1.0.3", "v1.0.4", "v1.0.5", "v1.0.6"}
	outcome := map[string]report.Outcome{"v1.0.0": report.NotReproduced, "v1.0.1": report.NotReproduced, "v1.0.2": report.NotReproduced,
		"v1.0.3": report.NotReproduced, "v1.0.4": report.Reproduced, "v1.0.5": report.Reproduced, "v1.0.6": report.Reproduced}
	broken := map[string]bool{"v1.0.0": true, "v1.0.3": true, "v1.0.6": true} // an end and the middle among them
	var ran []string
	s, err := Find("s", "bug", rel, false, nil, func(tag string) (report.Outcome, error) {
		ran = append(ran, tag)
		if broken[tag] {
			return "", fmt.Errorf("%w: its build needs example.com/m@v0.1.9, which the module proxy will not serve (403 Forbidden)", ErrUnbuildable)
		}
		return outcome[tag], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{"v1.0.2", report.NotReproduced, "v1.0.4", report.Reproduced}}
	if !slices.Equal(s.Changes, want) {
		t.Fatalf("changes = %v, want %v (ran %v)", s.Changes, want, ran)
	}
	for tag := range broken {
		if _, ok := s.Unobtainable[tag]; !ok || slices.Contains(s.NotRun, tag) {
			t.Errorf("%s: must be left out with its reason, not listed as merely not run: unobtainable %v, not run %v", tag, s.Unobtainable, s.NotRun)
		}
	}
	if !strings.Contains(s.Verdict, "v1.0.3") || !strings.Contains(s.Verdict, "example.com/m@v0.1.9") {
		t.Errorf("the verdict must say which releases did not build and why: %q", s.Verdict)
	}
	if n := len(slices.Compact(slices.Sorted(slices.Values(ran)))); n != len(ran) {
		t.Errorf("a release was tried twice: %v", ran)
	}
}

func TestBisectWhereNoReleaseBuilds(t *testing.T) {
	s, err := Find("s", "bug", []string{"v1.0.0", "v1.0.1"}, false, nil, func(string) (report.Outcome, error) {
		return "", fmt.Errorf("%w: no", ErrUnbuildable)
	})
	if err != nil || len(s.Runs) != 0 || len(s.Unobtainable) != 2 {
		t.Fatalf("err %v, search %+v", err, s)
	}
}
