package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMakeRebuildsOnEveryInput asks make, for one input of every package
// the two binaries compile from (bin/conformance: ./cmd/conformance;
// bin/e2e.test: ./suites with -tags e2e and its tests), for each file they
// embed and for go.mod and go.sum, what it would do were that file just
// edited (make -n -W FILE) with the binary present and newer than every
// source: it must run the go command. A rule listing the sources by hand
// (the old `find cmd pkg suites scenarios`) left out internal/, fixtures/
// and go.sum, and make ran the old binary without a word.
func TestMakeRebuildsOnEveryInput(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed: the Makefile is not read here")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// read here so that go test's cache knows the result depends on it
	if _, err := os.ReadFile(filepath.Join(root, "Makefile")); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	// the catalog's defaults as they are, never remade here (make remakes
	// an included makefile even with -n)
	mk := filepath.Join(bin, "catalog.mk")
	if err := os.WriteFile(mk, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, b := range []struct {
		variable, target string
		list             []string
	}{
		{"CLI", "conformance", []string{"./cmd/conformance"}},
		{"E2E", "e2e.test", []string{"-test", "-tags", "e2e", "./suites"}},
	} {
		inputs := append(moduleInputs(t, root, b.list...), "go.mod", "go.sum")
		target := filepath.Join(bin, b.target)
		if err := os.WriteFile(target, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		var missed []string
		for _, in := range inputs {
			cmd := exec.Command(makeBin, "-n", "--no-print-directory", "-C", root, "-W", in, b.variable+"="+target, "CATALOG_MK="+mk, "CATALOG_INPUTS=", target)
			cmd.Env = append(os.Environ(), "MAKEFLAGS=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("make -n -W %s %s: %v\n%s", in, target, err, out)
			}
			if !bytes.Contains(out, []byte(" build ")) && !bytes.Contains(out, []byte(" test -c ")) {
				missed = append(missed, in)
			}
		}
		if len(missed) > 0 {
			t.Errorf("make would not rebuild $(%s) after an edit to %d of its %d inputs: %s", b.variable, len(missed), len(inputs), strings.Join(missed, ", "))
		}
	}
}

// moduleInputs lists, relative to root, one Go file of every package of
// this module that `go list -deps args...` names, and every file they embed.
func moduleInputs(t *testing.T, root string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-json=Dir,Module,GoFiles,TestGoFiles,XTestGoFiles,EmbedFiles"}, args...)...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", strings.Join(args, " "), err)
	}
	var inputs []string
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p struct {
			Dir                                string
			Module                             *struct{ Main bool }
			GoFiles, TestGoFiles, XTestGoFiles []string
			EmbedFiles                         []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Module == nil || !p.Module.Main {
			continue
		}
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, files := range [][]string{p.GoFiles, p.TestGoFiles, p.XTestGoFiles} {
			// a test binary's generated main is in the build cache: not an input
			if len(files) > 0 && !filepath.IsAbs(files[0]) {
				inputs = append(inputs, filepath.Join(rel, files[0]))
			}
		}
		for _, f := range p.EmbedFiles {
			inputs = append(inputs, filepath.Join(rel, f))
		}
	}
	slices.Sort(inputs)
	return slices.Compact(inputs)
}
