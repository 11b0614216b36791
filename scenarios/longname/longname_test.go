package longname

import (
	"strings"
	"testing"
	"unicode"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

// The names sit on either side of the label limit the bug is about, and
// each cut to 63 characters still ends as a label value must.
func TestNamesAroundTheLimit(t *testing.T) {
	if len(Long) <= 63 || len(Short) != 63 {
		t.Errorf("Long is %d characters (want over 63), Short %d (want 63)", len(Long), len(Short))
	}
	if last := rune(Long[62]); !unicode.IsLower(last) && !unicode.IsDigit(last) {
		t.Errorf("Long cut to 63 ends in %q: ArgoCD's truncation would cut more, blurring the fix", last)
	}
	for name, v := range variants {
		if name != LabelTracking && v.tracking != "annotation" && v.tracking != "annotation+label" {
			t.Errorf("%s: tracking %q: label tracking fails the sync of any long name, not only its hooks", name, v.tracking)
		}
	}
}

// Every variant ends in its verdict: a symptom held for the bug variants,
// the Application gone for the mitigations.
func TestEveryVariantEndsInItsVerdict(t *testing.T) {
	for _, name := range Variants {
		mitigation := name == "annotation-tracking" || name == "short-name" || name == Upgrade || name == LabelTracking
		c := matrix.Cell{Scenario: matrix.Scenario{Name: "longname-hooks-argocd"}, ArgoCD: catalog.MustRelease("v3.4.2"),
			ComponentVersion: "v1.8.3", Variant: matrix.Variant{Name: name, Mitigates: mitigation}}
		sc := Feature(c)
		last := sc.Steps[len(sc.Steps)-1]
		want := "stays Terminating"
		switch {
		case name == LabelTracking: // the sync itself, not only the hooks
			want = "synced under label-only tracking"
		case mitigation:
			want = " gone"
		}
		if last.Kind() != step.Looks || !strings.Contains(last.Name(), want) {
			t.Errorf("%s: last step %q (%s), want the verdict saying %q", name, last.Name(), last.Kind(), want)
		}
		if len(sc.Repeated) > 0 {
			t.Errorf("%s: names taken twice %q", name, sc.Repeated)
		}
	}
}
