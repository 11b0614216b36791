package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakefileSourceDefaults runs the Makefile on the catalog's defaults
// as the CLI writes them for it (MakeDefaults, in CATALOG_MK) and checks it
// finds every source with a default, and that each variable left unset is
// exported as that path made absolute when it exists, else empty, and a
// variable the user sets is kept.
func TestMakefileSourceDefaults(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed: the Makefile is not read here")
	}
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// read here so that go test's cache knows the result depends on it
	if _, err := os.ReadFile(filepath.Join(root, "Makefile")); err != nil {
		t.Fatal(err)
	}
	var want, vars []string
	for _, s := range c.AllSources() {
		if s.Default != "" {
			want = append(want, s.Env+"="+s.Default)
			vars = append(vars, s.Env)
		}
	}
	if len(want) == 0 {
		t.Fatal("no source in the catalog has a default: nothing to check")
	}
	show := "show-sources: ; @echo \"$(SOURCE_DEFAULTS)\""
	for _, v := range vars {
		show += "; echo \"" + v + "=$$" + v + "\""
	}
	kept := vars[0]
	mk := filepath.Join(t.TempDir(), "catalog.mk")
	if err := os.WriteFile(mk, []byte(c.MakeDefaults()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(makeBin, "-s", "--no-print-directory", "-C", root, "--eval", show, "CATALOG_MK="+mk, "show-sources")
	for _, e := range os.Environ() {
		name, _, _ := strings.Cut(e, "=")
		if !slices.Contains(vars, name) && !strings.HasPrefix(name, "MAKE") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, kept+"=/set/by/the/user")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if got := strings.Fields(lines[0]); !slices.Equal(sorted(got), sorted(want)) {
		t.Errorf("the Makefile reads the catalog's sources as %q, want %q", got, want)
	}
	for i, v := range vars {
		d := strings.TrimPrefix(want[i], v+"=")
		expect := ""
		if v == kept {
			expect = "/set/by/the/user"
		} else if _, err := os.Stat(filepath.Join(root, d)); err == nil {
			expect = filepath.Join(root, d)
		}
		if i+1 >= len(lines) || lines[i+1] != v+"="+expect {
			t.Errorf("the Makefile exports %q, want %q", strings.Join(lines[1:], " | "), v+"="+expect)
		}
	}
}

func TestSourcesRefusedWhereTheMakefileCouldNotReadThem(t *testing.T) {
	for _, line := range []string{
		"sources: {env: lower_case, tree: x}",
		"sources: {env: X_SOURCES, tree: x, default: /abs/path}",
		"sources: {env: X_SOURCES, tree: x, default: \"a path\"}",
	} {
		y := "kind: v0.27.0\nkubernetes: {default: v1.33.13, versions: [{version: v1.33.13, etcd: v3.5.24, coredns: v1.12.0, onlineNodeImage: kindest/node:v1.33.1}]}\nargocd:\n  default: [v2.14.11]\n  smoke: v2.14.11\n  " + line + "\n"
		if _, err := Parse([]byte(y)); err == nil || !strings.Contains(err.Error(), "sources.") {
			t.Errorf("%s: err = %v, want a sources error", line, err)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// make help fits 100 columns, the three jobs first, every target named
// once, nothing of make's syntax left in it ($(VAR), $$).
func TestMakeHelpFitsAScreen(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	targets := regexp.MustCompile(`(?m)^([a-z0-9-]+):.*## `).FindAllStringSubmatch(string(mk), -1)
	for _, full := range []string{"", "FULL=1"} {
		args := []string{"-s", "-C", "../..", "help"}
		if full != "" {
			args = append(args, full)
		}
		out, err := exec.Command("make", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("make help %s: %v\n%s", full, err, out)
		}
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		var first []string // the first three targets named
		for _, l := range lines {
			if f := strings.Fields(l); len(first) < 3 && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") && len(f) > 0 {
				first = append(first, f[0])
			}
		}
		if lines[0] != "The three jobs:" || strings.Join(first, " ") != "e2e conform upgrade-check" {
			t.Errorf("make help %s starts %q with %q, want the three jobs first", full, lines[0], first)
		}
		for i, l := range lines {
			if len(l) > 100 || strings.Contains(l, "$(") || strings.Contains(l, "$$") {
				t.Errorf("make help %s line %d (%d columns): %q", full, i+1, len(l), l)
			}
		}
		for _, tg := range targets {
			if n := strings.Count(string(out), "\n  "+tg[1]+" ") + strings.Count(string(out), "\n  "+tg[1]+"\n"); n != 1 {
				t.Errorf("make help %s names %s %d times", full, tg[1], n)
			}
		}
	}
}

// make conform without CHART is one line and exit 2, before anything is
// compiled (the Makefile's catalog include builds the CLI).
func TestMakeConformWithoutChart(t *testing.T) {
	cmd := exec.Command("make", "-C", "../..", "--no-print-directory", "conform", "CATALOG_MK=/nonexistent/catalog.mk")
	cmd.Env = append(os.Environ(), "CHART=")
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || len(lines) != 1 || !strings.Contains(lines[0], "make conform: CHART= names the chart") {
		t.Errorf("make conform: %v\n%s", err, out)
	}
}
