package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The table of packages has a row per package, its text the first sentence
// of the package comment, and the hand-written rows; the scenarios share one.
func TestPackageTableRowsFromPackageComments(t *testing.T) {
	table, err := PackageTable(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| package | what |\n|---|---|\n| `cmd/conformance` | ",
		"| `pkg/report/render` | turns a run's report",
		"| `internal/shell` | ",
		"| `scenarios/<dir>/` | one scenario each",
		"| `images/` | ",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("the table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "`scenarios/kyverno`") || strings.Contains(table, "| Package ") {
		t.Errorf("a scenario has its own row, or a row keeps its \"Package x\":\n%s", table)
	}
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if strings.Count(strings.ReplaceAll(line, `\|`, ""), "|") != 3 {
			t.Errorf("row %q: want two cells", line)
		}
	}
}

// A package comment's first sentence is the row, an "e.g." inside it
// included; one cut short (before the list a colon opens) makes no row:
// make docs says so instead of writing half a sentence.
func TestPackageWhatRefusesACutSentence(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]string{
		"eg.go":   "a wrapper for hosts (some VMs, e.g. Firecracker guests)",
		"cut.go":  "",
		"good.go": `a wrapper for hosts (some VMs): one \| two`,
	} {
		comment := map[string]string{
			"eg.go":   "// Package x is a wrapper for hosts (some VMs, e.g. Firecracker guests).\npackage x\n",
			"cut.go":  "// Package x is what follows:\n//\n// - a list\npackage x\n",
			"good.go": "// Package x is a wrapper for hosts (some VMs): one | two. More.\npackage x\n",
		}[name]
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(comment), 0o644); err != nil {
			t.Fatal(err)
		}
		what, err := packageWhat([]string{path})
		switch {
		case want == "" && err == nil:
			t.Errorf("%s: a cut sentence made the row %q", name, what)
		case want != "" && (err != nil || what != want):
			t.Errorf("%s: row %q, %v; want %q", name, what, err, want)
		}
	}
}
