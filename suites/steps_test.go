package suites

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
var apiTypes = []string{"github.com/argoproj/argo-cd/v3/pkg/apis/", "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common",
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
func allowed(module, p string) error { return allowedIn(vocabulary, apiTypes, module, p) }

// allowedIn says why p is not among the module's packages own (a prefix
// ending in "/" takes what is below it) or the outside packages outside,
// nil when it is (the standard library always is).
func allowedIn(own, outside []string, module, p string) error {
	if pkg, ok := strings.CutPrefix(p, module); ok {
		for _, v := range own {
			if pkg == v || strings.HasSuffix(v, "/") && strings.HasPrefix(pkg, v) || strings.HasPrefix(pkg, v+"/") {
				return nil
			}
		}
		return fmt.Errorf("below the vocabulary (%s)", strings.Join(own, ", "))
	}
	if first, _, _ := strings.Cut(p, "/"); !strings.Contains(first, ".") {
		return nil // the standard library
	}
	for _, a := range outside {
		if p == a || strings.HasSuffix(a, "/") && strings.HasPrefix(p, a) {
			return nil
		}
	}
	return fmt.Errorf("neither the vocabulary nor API types (%s)", strings.Join(outside, ", "))
}

// harness is what make conform and make upgrade-check (pkg/conform,
// pkg/upgrade) are written in: the vocabulary, the harness they share
// (pkg/appcell: the chart or tree, the rendered model, the cell skeleton;
// pkg/appstate: an Application's state read and compared; pkg/route) and
// what a command needs beside its cells: the catalog of releases, the
// report's outcomes, the runner it registers with, pkg/lifecycle for a
// cell's notes, evidence and refs, pkg/argocd's render (upgrade-check reads
// the repo server's), pkg/helm to render a chart (conform), internal/text's
// clip and "none", internal/images' offline mode, internal/gitserver's
// repository URL and internal/kube's manifest decoder, pkg/gitrepo (a team's repository
// served and written: it runs git, as pkg/appcell runs helm), pkg/upgrade/inplace
// (ArgoCD upgraded in place, fenced the same), make upgrade-check's own
// nouns (pkg/upgrade/spec, cell and fleet, each fenced the same), and pkg/metricsserver's
// setting (METRICS parsed: the cluster's metrics-server, which env.MetricsServer
// installs). No shell, no kubectl,
// no client or e2e-framework feature of their own: internal/shell,
// internal/cluster, internal/host, client-go, klient and features are not
// on the list, and no selector of the run's raw clients (Kube, Kubectl) or
// lifecycle.Get is used (read from the syntax tree, not grepped).
var harness = []string{"pkg/step", "pkg/env", "pkg/check", "pkg/assert", "pkg/matrix", "pkg/fixture", "pkg/appcell", "pkg/appstate", "pkg/route",
	"pkg/catalog", "pkg/report", "pkg/runner", "pkg/lifecycle", "pkg/argocd", "pkg/helm",
	"internal/text", "internal/images", "internal/gitserver", "internal/kube", "pkg/gitrepo", "pkg/upgrade/inplace", "pkg/upgrade/verdict", "pkg/metricsserver",
	"pkg/upgrade/spec", "pkg/upgrade/cell", "pkg/upgrade/fleet"}

// harnessOutside are the packages from outside the module the harness may
// import beside API types: the e2e-framework config a step's func takes,
// the apimachinery helpers a rendered object is read with.
var harnessOutside = append(slices.Clone(apiTypes), "sigs.k8s.io/e2e-framework/pkg/envconf",
	"k8s.io/apimachinery/pkg/util/validation", "k8s.io/apimachinery/pkg/runtime")

// rawClients are the selectors below the vocabulary: the run's clients.
var rawClients = map[string]bool{"Kube": true, "Kubectl": true}

// pkg/conform and pkg/upgrade import only the harness (an import graph read
// with go/parser, as the scenarios' fence is), and call none of the run's
// raw clients.
func TestHarnessImportsOnlyItsLayer(t *testing.T) {
	for _, dir := range []string{"../pkg/conform", "../pkg/upgrade", "../pkg/upgrade/inplace", "../pkg/upgrade/spec", "../pkg/upgrade/cell", "../pkg/upgrade/fleet"} {
		bad, files, err := belowHarness(dir)
		if err != nil {
			t.Fatal(err)
		}
		if files < 1 {
			t.Fatalf("%s: read %d files: not the module's root", dir, files)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
}

// The fence fails on what it must: a file importing internal/shell or
// e2e-framework's features, or reading through the run's kubectl.
func TestHarnessFenceCatchesABreach(t *testing.T) {
	dir := t.TempDir()
	src := `package conform

import (
	"context"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"sigs.k8s.io/e2e-framework/pkg/features"
)

var _ = features.New
var _ = shell.Run

func read(ctx context.Context) error { return lifecycle.From(ctx).Kubectl.Apply(ctx, "") }
`
	if err := os.WriteFile(filepath.Join(dir, "breach.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, _, err := belowHarness(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(bad, "\n")
	for _, want := range []string{"imports github.com/gitops-conformance/suite/internal/shell", "imports sigs.k8s.io/e2e-framework/pkg/features", "uses .Kubectl"} {
		if !strings.Contains(got, want) {
			t.Errorf("the fence let through %q; it said:\n%s", want, got)
		}
	}
	if strings.Contains(got, "imports github.com/gitops-conformance/suite/pkg/lifecycle") {
		t.Errorf("pkg/lifecycle is on the harness's list: %s", got)
	}
}

// belowHarness says what the non-test Go files of dir import or call
// below the harness.
func belowHarness(dir string) (bad []string, files int, err error) {
	const module = "github.com/gitops-conformance/suite/"
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, 0, err
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return nil, 0, err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if err := allowedIn(harness, harnessOutside, module, p); err != nil {
				bad = append(bad, fmt.Sprintf("%s imports %s: %v", path, p, err))
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, isIdent := sel.X.(*ast.Ident); rawClients[sel.Sel.Name] || isIdent && x.Name == "lifecycle" && sel.Sel.Name == "Get" {
					bad = append(bad, fmt.Sprintf("%s uses .%s: below the vocabulary (pkg/env acts, pkg/check looks)", path, sel.Sel.Name))
				}
			}
			return true
		})
	}
	return bad, files, nil
}
