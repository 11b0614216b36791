package images

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// images/argocd/gotoolchain.sh picks the toolchain a build switches to from
// the module's go line: the machine's Go when new enough, else the approved
// toolchain of that Go minor (the catalog's goToolchains), else a refusal.
func TestGoToolchainFromTheGoLine(t *testing.T) {
	script, err := filepath.Abs("../../images/argocd/gotoolchain.sh")
	if err != nil {
		t.Fatal(err)
	}
	run := func(approved, call string) (string, error) {
		cmd := exec.Command("bash", "-c", `set -euo pipefail; . "$1"; `+call, "_", script)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "GO_LOCAL_VERSION=go1.26.8"}
		if approved != "-" {
			cmd.Env = append(cmd.Env, "GO_TOOLCHAINS="+approved)
		}
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	for _, tt := range []struct{ approved, need, want string }{
		{"go1.27.3", "1.27.0", "go1.27.3"},
		{"go1.27.3", "1.27", "go1.27.3"},
		{"go1.27.3", "1.26.3", "local"},
		{"go1.27.3", "1.26.8", "local"},
		{"go1.26.9 go1.27.3", "1.27.2", "go1.27.3"},
		{"-", "1.27.0", "go1.27.3"}, // the catalog's
	} {
		if got, err := run(tt.approved, "toolchain_for "+tt.need); err != nil || got != tt.want {
			t.Errorf("GO_TOOLCHAINS=%q, go %s: %q, %v; want %q", tt.approved, tt.need, got, err, tt.want)
		}
	}
	for _, tt := range []struct{ approved, need string }{
		{"go1.27.3", "1.28.0"}, // no 1.28 approved
		{"go1.27.3", "1.27.4"}, // the approved one is older than go.mod asks
		{"", "1.27.0"},
	} {
		out, err := run(tt.approved, "toolchain_for "+tt.need)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !strings.Contains(out, "no approved Go") {
			t.Errorf("GO_TOOLCHAINS=%q, go %s: %q, %v; want a refusal, status 3", tt.approved, tt.need, out, err)
		}
	}
	// a switched command: the checksum database on for the toolchain, off for every module else
	if got, err := run("go1.27.3", `toolchain_env go1.27.3; echo "${TC_ENV[*]}"; toolchain_env local; echo "${TC_ENV[*]}"`); err != nil ||
		got != "GOTOOLCHAIN=go1.27.3 GOSUMDB=sum.golang.org GONOSUMDB=*\nGOTOOLCHAIN=local GOSUMDB=off" {
		t.Errorf("toolchain_env: %q, %v", got, err)
	}
	if got, err := run("go1.27.3", `needs_go 'github.com/argoproj/argo-cd/v3@v3.6.1 requires go \u003e= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)'; needs_go 'm@v1 requires go >= 1.27 (running go 1.26.8; GOTOOLCHAIN=local)'; needs_go 'other'`); err != nil || got != "1.27.0\n1.27" {
		t.Errorf("needs_go: %q, %v", got, err)
	}
}
