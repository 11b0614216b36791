package runner

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
)

func TestReleases(t *testing.T) {
	published := map[string]bool{"v2.13.3": true, "v2.13.4": true, "v2.14.0": true, "v2.14.1": true, "v2.14.2": true}
	got, err := Releases("v2.13.3", "v2.14.2", func(tag string) bool { return published[tag] })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"v2.13.3", "v2.13.4", "v2.14.0", "v2.14.1", "v2.14.2"}
	if !slices.Equal(got, want) {
		t.Fatalf("Releases = %v, want %v", got, want)
	}
	if _, err := Releases("v2.14.2", "v2.13.3", nil); err == nil {
		t.Fatal("a reversed range must be an error")
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
	s, err := Find("kyverno-argocd", "bug", rel, false, func(tag string) (report.Outcome, error) { return island[tag], nil })
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
	s, err := Find("kyverno-argocd", "bug", releases(), true, func(tag string) (report.Outcome, error) { return island[tag], nil })
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
	s, err := Find("s", "bug", rel, false, func(tag string) (report.Outcome, error) { return outcome[tag], nil })
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
	s, err := Find("kyverno-argocd", "bug", rel, true, func(tag string) (report.Outcome, error) {
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
