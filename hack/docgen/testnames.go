package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// citedTest is a test's name as a page cites it: "a unit test
// (`TestEveryScenarioHasAMeasuredQuickTier`) keeps ...".
var citedTest = regexp.MustCompile(`\bTest[A-Z]\w*`)

// skipped are the directories no page or test of the suite's own is under:
// runs' reports (their report.md names cells, not tests) and git's.
var skipped = map[string]bool{".git": true, "reports": true, "node_modules": true}

// TestFuncs are the names of the top-level Test functions of every _test.go
// under root, whatever its build tags (the e2e tests' too).
func TestFuncs(root string) (map[string]bool, error) {
	names := map[string]bool{}
	fset := token.NewFileSet()
	err := walk(root, "_test.go", func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Test") {
				names[fn.Name.Name] = true
			}
		}
		return nil
	})
	return names, err
}

// Pages reads every Markdown page under root (README.md, docs/, the
// scenarios' findings, the image recipes' notes), by its path from root.
func Pages(root string) (map[string]string, error) {
	pages := map[string]string{}
	err := walk(root, ".md", func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		pages[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return pages, err
}

// CheckTests finds the test names pages cite that no _test.go defines: a
// page that says a test guards something promises a guard, and a renamed or
// removed test takes the guard away without a word.
func CheckTests(pages map[string]string, tests map[string]bool) []string {
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		seen := map[string]bool{}
		for _, t := range citedTest.FindAllString(pages[name], -1) {
			if !tests[t] && !seen[t] {
				seen[t] = true
				bad = append(bad, name+": "+t)
			}
		}
	}
	return bad
}

// walk calls do on each file under root whose name ends in suffix, leaving
// out the skipped directories.
func walk(root, suffix string, do func(path string) error) error {
	return filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != root && skipped[e.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, suffix) {
			return nil
		}
		if err := do(path); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		return nil
	})
}
