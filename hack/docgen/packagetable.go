package main

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A row of docs/design.md's table of packages.
type packageRow struct{ Path, What string }

// handRows are the table's rows that are not one Go package each: the
// scenarios, one row for their directories (each one's own doc comment
// describes its bug, in README.md's table and docs/results.md), and the
// directories without Go code.
var handRows = []packageRow{
	{"scenarios/<dir>/", "one scenario each, written in `pkg/env`, `pkg/check`, `pkg/fixture` and `pkg/assert`, with its findings in `README.md`"},
	{"images/", "offline image recipes and build modules (`images/registry`: the suite's registry)"},
}

// tableOrder is the order of the table's top-level directories, from what a
// user runs to what is under it; any other directory follows, by name.
var tableOrder = []string{"cmd", "suites", "scenarios", "pkg", "internal", "fixtures", "images", "hack", "docs"}

// PackageTable is docs/design.md's table of packages: a row per package of
// the module under root, what it is being the first sentence of its package
// comment (doc.go's) without "Package x is", plus handRows.
func PackageTable(root string) (string, error) {
	rows, err := packageRows(root)
	if err != nil {
		return "", err
	}
	rows = append(rows, handRows...)
	rank := func(path string) int {
		top, _, _ := strings.Cut(path, "/")
		if i := slices.Index(tableOrder, top); i >= 0 {
			return i
		}
		return len(tableOrder)
	}
	slices.SortStableFunc(rows, func(a, b packageRow) int {
		if d := rank(a.Path) - rank(b.Path); d != 0 {
			return d
		}
		return strings.Compare(a.Path, b.Path)
	})
	var b strings.Builder
	b.WriteString("| package | what |\n|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s |\n", r.Path, r.What)
	}
	return b.String(), nil
}

// packageRows reads the package comment of each package under root: the
// module's own (not another module's, as images/build/* are), scenarios
// left to their hand-written row.
func packageRows(root string) ([]packageRow, error) {
	files := map[string][]string{} // directory: its non-test Go files
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin" || d.Name() == "reports" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files[filepath.Dir(path)] = append(files[filepath.Dir(path)], path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list packages: %w", err)
	}
	var rows []packageRow
	for dir, paths := range files {
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return nil, err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "scenarios/") {
			continue
		}
		what, err := packageWhat(paths)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", rel, err)
		}
		rows = append(rows, packageRow{rel, what})
	}
	return rows, nil
}

// named is how a package comment starts: "Package x " or "Command x ",
// then often "is ".
var named = regexp.MustCompile(`^(Package|Command) \S+ (is )?`)

// packageWhat is the first sentence of the package comment among paths,
// without its "Package x is" and its period, escaped for a table cell.
func packageWhat(paths []string) (string, error) {
	var text string
	for _, p := range paths {
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", err
		}
		if f.Doc != nil {
			text = f.Doc.Text()
			break
		}
	}
	what := strings.Join(strings.Fields(FirstSentence(text)), " ")
	if !named.MatchString(what) {
		return "", fmt.Errorf("the package comment starts %q, want \"Package x ...\" or \"Command x ...\"", firstWords(text))
	}
	what = strings.TrimSuffix(named.ReplaceAllString(what, ""), ".")
	// a sentence cut short (at the period of an "e.g.", or before the list a
	// colon opens) reads as a broken row
	if strings.Count(what, "(") != strings.Count(what, ")") || strings.HasSuffix(what, ":") {
		return "", fmt.Errorf("the package comment's first sentence is cut short: %q", what)
	}
	return strings.ReplaceAll(what, "|", `\|`), nil
}

func firstWords(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
