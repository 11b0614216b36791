package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasDocGo: each package of this module keeps its package
// comment in doc.go ("Package x ..." or, for a command, "Command x ..."), and
// no other file of it has one. docs/example is the exception: its whole file
// is the worked example docs/writing-scenarios.md shows, comment included.
func TestEveryPackageHasDocGo(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "reports") {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module (images/build/*: tool pins)
			}
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 10 {
		t.Fatalf("found %d packages under %s: not the module's root", len(dirs), root)
	}
	for dir, files := range dirs {
		rel, _ := filepath.Rel(root, dir)
		if rel == filepath.Join("docs", "example") {
			continue
		}
		var withDoc []string
		for _, f := range files {
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if file.Doc != nil {
				withDoc = append(withDoc, filepath.Base(f))
				if filepath.Base(f) == "doc.go" {
					text := file.Doc.Text()
					isPackage := strings.HasPrefix(text, "Package "+file.Name.Name+" ")
					isCommand := file.Name.Name == "main" && strings.HasPrefix(text, "Command ")
					if !isPackage && !isCommand {
						t.Errorf("%s/doc.go: the comment starts %q, want \"Package %s ...\" (or \"Command ...\")", rel, firstLine(text), file.Name.Name)
					}
				}
			}
		}
		if len(withDoc) != 1 || withDoc[0] != "doc.go" {
			t.Errorf("%s: package comments in %q, want in doc.go only", rel, withDoc)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestInternalIsTheBasement: the packages under internal/ are the
// basement every layer stands on (the shell, the host, kind clusters, the
// image builds, the git server, text): they import nothing of the module
// but each other and the catalog, the versions' data (pkg/catalog itself
// imports only internal/shell). The drivers of whole runs (the benchmarks,
// the self-tests, e2erun) live beneath their command, under
// cmd/conformance/internal, as kind keeps its commands under pkg/cmd.
func TestInternalIsTheBasement(t *testing.T) {
	const module = "github.com/gitops-conformance/suite/"
	allowed := func(path string) bool {
		return strings.HasPrefix(path, module+"internal/") || path == module+"pkg/catalog"
	}
	check := func(dir string, ok func(string) bool) int {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, imp := range parsed.Imports {
				if p := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(p, module) && !ok(p) {
					t.Errorf("%s imports %s: internal/ is the basement, it imports nothing above it", strings.TrimPrefix(f, "../../"), p)
				}
			}
		}
		return n
	}
	dirs, err := filepath.Glob("../../internal/*")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, d := range dirs {
		files += check(d, allowed)
	}
	if files < 10 {
		t.Fatalf("read %d files under internal/: not the module's", files)
	}
	// the catalog, which the basement may read, stands on the basement alone
	check("../../pkg/catalog", func(p string) bool { return strings.HasPrefix(p, module+"internal/") })
}
