package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// vocabularyPackages are the packages scenarios are written in, in the
// order a scenario uses them, each with what its exported names are.
var vocabularyPackages = []struct{ Dir, Role string }{
	{"pkg/step", "the steps a scenario is made of (`step.Step`: named, acting or looking) and the builder that puts them in the right phase"},
	{"pkg/env", "actions (`step.Step`s that act) and observations"},
	{"pkg/check", "looks (`assert.Check`) and the typed refs' reads"},
	{"pkg/fixture", "files (`fixture.Files`, produced when the step runs)"},
	{"pkg/assert", "waits and verdicts (`step.Step`s that look)"},
}

// Vocabulary renders every exported function, method and type of the
// packages under root, each with the first sentence of its doc comment. An
// exported name without a doc comment is an error: the page would have a
// hole where the code has one. Names are the names as a page writes them
// (env.Sync, assert.Intervals), for CheckMentions.
func Vocabulary(root string, pkgs []struct{ Dir, Role string }) (page string, names map[string]bool, err error) {
	var b strings.Builder
	b.WriteString(generated("make docs", "the doc comments of "+strings.Join(dirs(pkgs), ", ")))
	b.WriteString("# The vocabulary\n\nEvery exported name of the packages a scenario is written in, with the first\n" +
		"sentence of its doc comment (`go doc ./pkg/<name> <Name>` has the rest).\n" +
		"[Writing a scenario](writing-scenarios.md) shows them at work.\n\n")
	for _, p := range pkgs {
		fmt.Fprintf(&b, "- [`%s`](#%s): %s\n", p.Dir, anchor(p.Dir), p.Role)
	}
	var missing []string
	names = map[string]bool{}
	for _, p := range pkgs {
		d, err := load(filepath.Join(root, p.Dir), "github.com/gitops-conformance/suite/"+p.Dir)
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", p.Dir, d.Synopsis(d.Doc))
		b.WriteString("| name | what |\n|---|---|\n")
		row := func(name, sig, text string) {
			if strings.TrimSpace(text) == "" {
				missing = append(missing, p.Dir+"."+name)
				return
			}
			fmt.Fprintf(&b, "| `%s` | %s |\n", cell(sig), cell(FirstSentence(text)))
		}
		for _, f := range d.Funcs {
			row(f.Name, signature(f.Decl), f.Doc)
		}
		for _, t := range d.Types {
			row(t.Name, "type "+t.Name, t.Doc)
			for _, f := range t.Funcs {
				row(f.Name, signature(f.Decl), f.Doc)
			}
			for _, m := range t.Methods {
				if !plumbing[m.Name] {
					row(t.Name+"."+m.Name, signature(m.Decl), m.Doc)
				}
			}
		}
		for _, name := range exported(d) {
			names[path.Base(p.Dir)+"."+name] = true
		}
		var consts []string
		for _, v := range append(slices.Clone(d.Consts), d.Vars...) {
			for _, n := range v.Names {
				if token.IsExported(n) {
					consts = append(consts, "`"+n+"`")
				}
			}
		}
		if len(consts) > 0 {
			fmt.Fprintf(&b, "\nConstants and variables: %s.\n", strings.Join(consts, ", "))
		}
	}
	if len(missing) > 0 {
		return "", nil, fmt.Errorf("no doc comment on %s: say what each does", strings.Join(missing, ", "))
	}
	return b.String(), names, nil
}

// plumbing are methods that implement the standard library's interfaces
// (error, fmt.Stringer, errors.Unwrap): not the vocabulary's words.
var plumbing = map[string]bool{"Error": true, "Unwrap": true, "String": true, "Is": true, "As": true}

// exported lists a package's exported names: functions, types, their
// constructors and methods (Type.Method), constants and variables.
func exported(d *doc.Package) []string {
	var n []string
	for _, f := range d.Funcs {
		n = append(n, f.Name)
	}
	for _, t := range d.Types {
		n = append(n, t.Name)
		for _, f := range t.Funcs {
			n = append(n, f.Name)
		}
		for _, m := range t.Methods {
			n = append(n, t.Name+"."+m.Name)
		}
		for _, v := range append(slices.Clone(t.Consts), t.Vars...) {
			n = append(n, v.Names...)
		}
	}
	for _, v := range append(slices.Clone(d.Consts), d.Vars...) {
		n = append(n, v.Names...)
	}
	return n
}

// mention is a vocabulary name as prose writes it: env.Sync, assert.Intervals.Sync.
var mention = regexp.MustCompile(`\b(env|check|fixture|assert)\.([A-Z]\w*)`)

// CheckMentions returns the vocabulary names the pages mention that are not
// among names (as "page: name"): a page must not name a verb the code lacks.
func CheckMentions(pages map[string]string, names map[string]bool) []string {
	var bad []string
	for _, page := range slices.Sorted(maps.Keys(pages)) {
		seen := map[string]bool{}
		for _, m := range mention.FindAllStringSubmatch(pages[page], -1) {
			name := m[1] + "." + m[2]
			if !names[name] && !seen[name] {
				seen[name] = true
				bad = append(bad, page+": "+name)
			}
		}
	}
	return bad
}

// load reads a package's doc from its non-test files.
func load(dir, importPath string) (*doc.Package, error) {
	fset := token.NewFileSet()
	var files []*ast.File
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && path != dir {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("read %s: no Go files", dir)
	}
	return doc.NewFromFiles(fset, files, importPath)
}

// signature is a function's declaration without "func" and its body:
// `Name(params) results`, a method's with its receiver first.
func signature(decl *ast.FuncDecl) string {
	var b bytes.Buffer
	fset := token.NewFileSet()
	if decl.Recv != nil && len(decl.Recv.List) > 0 {
		b.WriteString("(")
		_ = printer.Fprint(&b, fset, decl.Recv.List[0].Type) // into a buffer: cannot fail
		b.WriteString(") ")
	}
	b.WriteString(decl.Name.Name)
	var t bytes.Buffer
	_ = printer.Fprint(&t, fset, decl.Type) // into a buffer: cannot fail
	b.WriteString(strings.TrimPrefix(t.String(), "func"))
	return b.String()
}

// FirstSentence is a doc comment's first sentence: up to the first period
// followed by a capital letter or the paragraph's end ("e.g." before a
// name and "1.5" do not end one), within the first paragraph.
func FirstSentence(text string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(text), "\n\n")
	words := strings.Fields(para)
	for i, w := range words {
		abbreviation := slices.Contains([]string{"e.g.", "i.e.", "cf.", "vs."}, strings.TrimLeft(w, "("))
		if strings.HasSuffix(w, ".") && !abbreviation && (i == len(words)-1 || unicode.IsUpper([]rune(words[i+1])[0])) {
			return strings.Join(words[:i+1], " ")
		}
	}
	return strings.Join(words, " ")
}

// cell makes text fit one Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// anchor is the heading anchor GitHub gives a heading of this text.
func anchor(heading string) string {
	return strings.ReplaceAll(strings.ToLower(heading), "/", "")
}

func dirs(pkgs []struct{ Dir, Role string }) []string {
	var d []string
	for _, p := range pkgs {
		d = append(d, p.Dir)
	}
	return d
}

// generated is the note at the top of a generated page.
func generated(command, from string) string {
	return fmt.Sprintf("<!-- Generated by %s (hack/docgen) from %s: edit those, not this page; make verify fails when it is stale. -->\n\n", command, from)
}
