package argocd

import (
	"slices"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// argo-cd/v2@v2.14.11's docs/operator-manual/tested-kubernetes-versions.md.
const tested21411 = `| Argo CD version | Kubernetes versions |
|-----------------|---------------------|
| 2.14 | v1.31, v1.30, v1.29, v1.28 |
| 2.13 | v1.30, v1.29, v1.28, v1.27 |
| 2.12 | v1.29, v1.28, v1.27, v1.26 |
`

func TestParseTested(t *testing.T) {
	minors, err := ParseTested(tested21411, catalog.MustRelease("v2.14.11"))
	if err != nil || !slices.Equal(minors, []string{"v1.31", "v1.30", "v1.29", "v1.28"}) {
		t.Fatalf("2.14: %v, %v", minors, err)
	}
	tt := Tested{Minors: minors}
	if !tt.Has("v1.30.4") || tt.Has("v1.33.13") || tt.String() != "v1.28-v1.31" {
		t.Errorf("in range: v1.30.4 %v, v1.33.13 %v, %q", tt.Has("v1.30.4"), tt.Has("v1.33.13"), tt.String())
	}
	if _, err := ParseTested(tested21411, catalog.MustRelease("v3.4.7")); err == nil {
		t.Error("3.4 in 2.14's file: want no row")
	}
}

// What make tested-ranges writes reads back as it was, a release it could
// not read included, and the committed file parses.
func TestRecordReadsBack(t *testing.T) {
	ranges := map[string]Tested{
		"v3.4.7":  {Minors: []string{"v1.35", "v1.34", "v1.33", "v1.32"}, Source: "github.com/argoproj/argo-cd/v3@v3.4.7:" + TestedFile},
		"v3.3.11": {Unread: "the module proxy would not serve it (403 Forbidden)"},
	}
	b, err := Record(ranges)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseRecorded(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["v3.4.7"].String() != "v1.32-v1.35" || got["v3.3.11"].Unread == "" || got["v3.3.11"].Has("v1.33.13") {
		t.Errorf("read back %+v", got)
	}
	if _, err := Recorded(); err != nil {
		t.Errorf("%s: %v", RecordedFile, err)
	}
}
