package guard

import (
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Every variant deletes the Application once and judges that deletion: the
// bug's verdict (went past the guard, or held), a mitigation's (OpenKruise
// still at work once the Application is gone); nothing after the verdict
// deletes or releases the Application.
func TestEveryVariantDeletesOnceAndJudges(t *testing.T) {
	for _, name := range Variants {
		mitigation := name != "bug" && name != Minimal
		c := matrix.Cell{Scenario: matrix.Scenario{Name: "openkruise-guard-argocd"}, ArgoCD: catalog.MustRelease("v3.5.1"),
			ComponentVersion: "v1.8.3", Variant: matrix.Variant{Name: name, Mitigates: mitigation}}
		sc := Feature(c)
		if len(sc.Repeated) > 0 {
			t.Errorf("%s: names taken twice %q", name, sc.Repeated)
		}
		deletes, verdict := 0, -1
		for i, s := range sc.Steps {
			if strings.HasPrefix(s.Name(), "delete application ") {
				deletes++
			}
			if strings.Contains(s.Name(), "went past its failing pre-delete guard") || strings.Contains(s.Name(), "still at work") || strings.Contains(s.Name(), "after its guard Job completed") {
				verdict = i
			}
		}
		if deletes != 1 {
			t.Errorf("%s: %d deletions of the Application, want 1", name, deletes)
		}
		if verdict < 0 {
			t.Fatalf("%s: no verdict step", name)
		}
		for _, s := range sc.Steps[verdict+1:] {
			if strings.HasPrefix(s.Name(), "delete application ") || strings.Contains(s.Name(), "removed by hand") {
				t.Errorf("%s: %q after the verdict: the deletion is what it judges", name, s.Name())
			}
		}
		want := map[bool]string{false: "non-cascade", true: "foreground"}[name != "non-cascading"]
		if !hasStep(sc, "delete application ", "("+want+")") {
			t.Errorf("%s: not deleted %s", name, want)
		}
	}
}

func hasStep(sc step.Scenario, prefix, substr string) bool {
	for _, s := range sc.Steps {
		if strings.HasPrefix(s.Name(), prefix) && strings.Contains(s.Name(), substr) {
			return true
		}
	}
	return false
}
