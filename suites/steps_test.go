package suites

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// vocabulary is what a scenario is written in: its steps (pkg/step), the
// acts (pkg/env), the looks (pkg/check) and how they are judged
// (pkg/assert), the cell it is a function of (pkg/matrix) and what it
// applies (pkg/fixture), plus the pieces scenarios share among themselves
// (scenarios/internal/..., held to the same fence). Nothing below them: no
// lifecycle, client, kubectl, helm or e2e-framework of a scenario's own.
var vocabulary = []string{"pkg/step", "pkg/env", "pkg/check", "pkg/assert", "pkg/matrix", "pkg/fixture", "scenarios/internal/"}

// apiTypes are the packages from outside the module a scenario may take its
// words from: the API types it names (an Application's spec, an operation's
// phase, a manifest's objects) and the formats it writes (YAML, a bcrypt
// hash in a chart value). Anything else of the outside world goes through
// the vocabulary.
var apiTypes = []string{"github.com/argoproj/argo-cd/v3/pkg/apis/", "github.com/argoproj/gitops-engine/pkg/sync/common",
	"k8s.io/apimachinery/pkg/apis/", "sigs.k8s.io/yaml", "golang.org/x/crypto/bcrypt"}

// The scenarios and the worked example of docs/writing-scenarios.md import
// only the vocabulary, the standard library and API types (an import graph
// read with go/parser, not a grep over their text): a raw read, a kubectl, a
// feature built by hand would need a package they cannot import.
func TestScenariosImportOnlyTheVocabulary(t *testing.T) {
	const module = "github.com/gitops-conformance/suite/"
	files := 0
	for _, root := range []string{"../scenarios", "../docs/example"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			files++
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if err := allowed(module, p); err != nil {
					t.Errorf("%s imports %s: %v", path, p, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 15 {
		t.Fatalf("read %d files: not the module's root", files)
	}
}

// allowed says why a scenario may not import p (nil when it may).
func allowed(module, p string) error {
	if own, ok := strings.CutPrefix(p, module); ok {
		for _, v := range vocabulary {
			if own == v || strings.HasSuffix(v, "/") && strings.HasPrefix(own, v) || strings.HasPrefix(own, v+"/") {
				return nil
			}
		}
		return fmt.Errorf("below the vocabulary (%s)", strings.Join(vocabulary, ", "))
	}
	if first, _, _ := strings.Cut(p, "/"); !strings.Contains(first, ".") {
		return nil // the standard library
	}
	for _, a := range apiTypes {
		if p == a || strings.HasSuffix(a, "/") && strings.HasPrefix(p, a) {
			return nil
		}
	}
	return fmt.Errorf("neither the vocabulary nor API types (%s)", strings.Join(apiTypes, ", "))
}

// make conform's checks and make upgrade-check's cells are written in the
// vocabulary too, though they read what a chart rendered below it (pkg/lifecycle's
// objects, a report): no e2e-framework feature built by hand, no raw read or
// kubectl of their own. A grep until they are one harness whose own fence
// can be an import graph.
func TestHarnessUsesTheVocabularyOnly(t *testing.T) {
	banned := regexp.MustCompile(`features\.New\(|\.Assess\(|\.Setup\(|lifecycle\.Get\(|\.Kube\.|\.Kubectl\.|shell\.Run\(`)
	var files []string
	for _, glob := range []string{"../pkg/conform/*.go", "../pkg/upgrade/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 10 {
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
