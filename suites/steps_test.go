package suites

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Every cell of the full matrix builds its steps, and no two steps of a
// cell share a name (each names itself; a step taken twice is renamed with
// As): go test and the cell's log say which step ran, never "refresh#01".
func TestEveryCellsStepsNameThemselves(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, err := Matrix()
	if err != nil {
		t.Fatal(err)
	}
	cells, err := data.Plan(cat, matrix.Selection{Tier: matrix.TierFull})
	if err != nil {
		t.Fatal(err)
	}
	code := Scenarios()
	seen := map[string]bool{}
	for _, c := range cells {
		sc := code[c.Scenario.Name].Feature(c)
		seen[c.Scenario.Name+"/"+c.Variant.Name] = true
		if len(sc.Repeated) > 0 {
			t.Errorf("%s: step names taken twice: %q", c.Report().ID(), sc.Repeated)
		}
		if len(sc.Steps) < 3 {
			t.Errorf("%s: %d steps", c.Report().ID(), len(sc.Steps))
		}
		if last := sc.Steps[len(sc.Steps)-1]; last.Kind() != step.Looks && last.Kind() != step.Acts {
			t.Errorf("%s: a step of no kind", c.Report().ID())
		}
	}
	for _, s := range data.Scenarios {
		for _, v := range s.Variants {
			if !seen[s.Name+"/"+v.Name] {
				t.Errorf("%s/%s: no cell of the full tier built it", s.Name, v.Name)
			}
		}
	}
}

// The scenarios, make conform's checks and make upgrade-check's cells are written in the vocabulary
// only: steps (step.New(...).Add), pkg/env's actions and pkg/check's looks.
// No e2e-framework feature built by hand (an Assess would take an action
// and a label of its own), no raw read or kubectl of their own.
func TestScenariosUseTheVocabularyOnly(t *testing.T) {
	banned := regexp.MustCompile(`features\.New\(|\.Assess\(|\.Setup\(|lifecycle\.Get\(|\.Kube\.|\.Kubectl\.|shell\.Run\(`)
	var files []string
	for _, glob := range []string{"../scenarios/*/*.go", "../pkg/conform/*.go", "../pkg/upgrade/*.go", "../docs/example/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 15 {
		t.Fatalf("found %d files: not the module's root", len(files))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := banned.FindString(line); m != "" && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d: %s: below the vocabulary (pkg/env acts, pkg/check looks)", f, i+1, m)
			}
		}
	}
}
