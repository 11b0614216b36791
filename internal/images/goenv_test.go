package images

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue #72: hack/actionlint.sh built actionlint with GOSUMDB=off under the
// Makefile's GOTOOLCHAIN=auto, and the go command refuses to switch to
// go.mod's toolchain with the checksum database off. Every go command's
// environment comes from hack/goenv.sh (scripts) or shell.GoEnv (Go code);
// no other file sets GOSUMDB=off, and a script sets GOTOOLCHAIN only to local
// (which never switches) or through go_env.
var (
	sumdbOff    = regexp.MustCompile(`GOSUMDB\s*(=|:=|\?=|:)\s*["']?off\b`)
	sumdbOn     = regexp.MustCompile(`GOSUMDB\s*(=|:=|\?=|:)\s*["']?sum\.golang\.org`)
	quoted      = regexp.MustCompile(`"[^"]*"`)
	toolchainTo = regexp.MustCompile(`GOTOOLCHAIN\s*(=|:=|\?=|:)\s*["']?(\$\([^)]*\)|[^\s"';&)]*)`)
)

// dropMessage empties a double-quoted string with a space in it: a message,
// not a setting.
func dropMessage(q string) string {
	if strings.Contains(q, " ") {
		return `""`
	}
	return q
}

// goEnvViolations lists the lines of a file that set the Go checksum or
// toolchain environment against hack/goenv.sh's rule. kind is "script" (a
// shell script: only go_env sets them, GOTOOLCHAIN=local aside), "settings"
// (the Makefile, a workflow: a switching GOTOOLCHAIN needs the database on
// in the same file) or "go" (Go code: shell.GoEnv only).
func goEnvViolations(kind, content string) []string {
	var bad []string
	hasSumdbOn := sumdbOn.MatchString(content)
	for i, line := range strings.Split(content, "\n") {
		code := line
		if t := strings.TrimSpace(code); strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//") {
			continue
		}
		if j := strings.Index(code, " # "); j >= 0 && kind != "go" {
			code = code[:j]
		}
		at := func(why string) {
			bad = append(bad, strings.TrimSpace(why)+": line "+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
		}
		if sumdbOff.MatchString(code) || (kind == "go" && strings.Contains(code, `"GOSUMDB=off"`)) {
			at("sets GOSUMDB=off (hack/goenv.sh's go_env local, or shell.GoEnv, is the one place)")
		}
		for _, m := range toolchainTo.FindAllStringSubmatch(quoted.ReplaceAllStringFunc(code, dropMessage), -1) {
			switch v := m[2]; {
			case v == "local", v == "" && kind == "script": // `export ... GOTOOLCHAIN` of a value set before
			case kind == "script":
				at("sets GOTOOLCHAIN=" + v + " by hand (go_env " + v + " sets the checksum database with it)")
			case kind == "settings" && !hasSumdbOn:
				at("sets GOTOOLCHAIN=" + v + " without GOSUMDB=sum.golang.org in the same file")
			}
		}
	}
	return bad
}

// The rule on the line that broke CI on a new machine (issue #72), and on
// the forms the suite's files use.
func TestGoEnvRule(t *testing.T) {
	for _, tt := range []struct {
		kind, content string
		bad           bool
	}{
		// hack/actionlint.sh at 2a7738c
		{"script", `  GOBIN=$(dirname "$bin")/tmp-actionlint GOFLAGS=-mod=mod GOSUMDB=off go install "github.com/rhysd/actionlint/cmd/actionlint@$version"`, true},
		// images/build/kubernetes/build.sh at 2a7738c: a switching toolchain under an exported GOSUMDB=off
		{"script", "export CGO_ENABLED=0 GOSUMDB=off GOWORK=off GOTOOLCHAIN\nGOTOOLCHAIN=$(cat toolchain)", true},
		{"script", `(cd "$mod" && GOTOOLCHAIN=$(cat toolchain) go build)`, true},
		{"script", `export GOTOOLCHAIN=auto GOSUMDB=sum.golang.org GONOSUMDB='*'`, true}, // right, but by hand
		{"script", `have=$(GOTOOLCHAIN=local go env GOVERSION)`, false},
		{"script", `TC_ENV=("GOTOOLCHAIN=$1" GOSUMDB=sum.golang.org)`, true},
		{"script", `progress "go build" "$MOD (go $goline, GOTOOLCHAIN=$toolchain)"`, false},
		{"script", "# GOSUMDB=off is hack/goenv.sh's\ngo_env local", false},
		{"settings", "export GOTOOLCHAIN := auto\nexport GOSUMDB := sum.golang.org", false},
		{"settings", "export GOTOOLCHAIN := auto\nexport GOSUMDB := off", true},
		{"settings", "env:\n  GOTOOLCHAIN: auto", true},
		{"go", `Env: []string{"GOFLAGS=-mod=mod", "GOSUMDB=off", "GOTOOLCHAIN=local"}`, true},
		{"go", `Env: shell.GoEnv("local")`, false},
	} {
		if got := goEnvViolations(tt.kind, tt.content); (len(got) > 0) != tt.bad {
			t.Errorf("%s %q: %v; want bad=%v", tt.kind, tt.content, got, tt.bad)
		}
	}
}

// Every file of the suite that runs or configures a go command keeps to
// hack/goenv.sh's rule.
func TestGoEnvDefinedOnce(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(repo, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, path)
		if d.IsDir() {
			if rel == ".git" || rel == "bin" || rel == "reports" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		var kind string
		switch name := d.Name(); {
		case rel == "hack/goenv.sh", rel == "internal/shell/goenv.go", strings.HasSuffix(name, "_test.go"):
			return nil
		case strings.HasSuffix(name, ".sh"), strings.HasPrefix(rel, ".ci/"):
			kind = "script"
		case name == "Makefile", strings.HasSuffix(name, ".mk"), strings.HasPrefix(rel, ".github/"):
			kind = "settings"
		case strings.HasSuffix(name, ".go"):
			kind = "go"
		case strings.HasPrefix(name, "Dockerfile"), strings.HasSuffix(name, ".Dockerfile"):
			kind = "script"
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		for _, v := range goEnvViolations(kind, string(b)) {
			t.Errorf("%s %s", rel, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked %d files: the walk missed the suite's scripts", checked)
	}
}

// go_env itself: the checksum database on for every toolchain but local.
func TestGoEnvScript(t *testing.T) {
	script, err := filepath.Abs("../../hack/goenv.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `set -euo pipefail; . "$1"; for tc in local auto go1.27.3; do go_env_words $tc; echo "${GO_ENV[*]}"; done
go_env auto; echo "$GOTOOLCHAIN $GOSUMDB $GONOSUMDB"`, "_", script)
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	want := "GOTOOLCHAIN=local GOSUMDB=off\n" +
		"GOTOOLCHAIN=auto GOSUMDB=sum.golang.org GONOSUMDB=*\n" +
		"GOTOOLCHAIN=go1.27.3 GOSUMDB=sum.golang.org GONOSUMDB=*\n" +
		"auto sum.golang.org *"
	if err != nil || strings.TrimSpace(string(out)) != want {
		t.Errorf("goenv.sh: %q, %v; want %q", out, err, want)
	}
}
