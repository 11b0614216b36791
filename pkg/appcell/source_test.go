package appcell

import (
	"strings"
	"testing"
)

// An object added to a source goes where a team adds one in git: a
// chart's templates, a kustomization's resources, a directory's top.
func TestWithObject(t *testing.T) {
	const doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n"
	chart := Source{Chart: &Chart{Name: "c"}, Files: map[string]string{"Chart.yaml": "name: c", "templates/a.yaml": "a"}}
	kust := Source{Files: map[string]string{"kustomization.yaml": "resources:\n- a.yaml\nnamespace: x\n", "a.yaml": "a"}}
	dir := Source{Files: map[string]string{"a.yaml": "a"}}
	for _, tc := range []struct {
		name    string
		src     Source
		at      string
		also    string // a file that must now hold this
		holding string
	}{
		{"chart", chart, "templates/m.yaml", "", ""},
		{"kustomization", kust, "m.yaml", "kustomization.yaml", "- a.yaml\n- m.yaml\n"},
		{"directory", dir, "m.yaml", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.src.WithObject("m.yaml", doc)
			if err != nil {
				t.Fatal(err)
			}
			if got[tc.at] != doc || len(got) != len(tc.src.Files)+1 {
				t.Errorf("want %s holding the object and one file more: %v", tc.at, got)
			}
			if tc.also != "" && !strings.Contains(got[tc.also], tc.holding) {
				t.Errorf("%s = %q, want it holding %q", tc.also, got[tc.also], tc.holding)
			}
			if _, ok := tc.src.Files[tc.at]; ok {
				t.Error("the source's own files changed")
			}
		})
	}
	if _, err := dir.WithObject("a.yaml", doc); err == nil || !strings.Contains(err.Error(), "already holds a.yaml") {
		t.Errorf("a file the source holds: %v", err)
	}
}
