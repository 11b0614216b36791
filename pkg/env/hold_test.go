package env

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitops-conformance/suite/pkg/assert"
)

// fakeDocker puts a docker on PATH that answers `docker exec NODE pgrep ...`
// with exit code rc, printing out.
func fakeDocker(t *testing.T, out string, rc int) {
	t.Helper()
	dir := t.TempDir()
	script := fmt.Sprintf("#!/bin/sh\nprintf '%%s' '%s'\nexit %d\n", out, rc)
	if err := os.WriteFile(filepath.Join(dir, "docker"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestNodeProcess(t *testing.T) {
	for _, tt := range []struct {
		name    string
		out     string
		rc      int
		running bool
		want    bool
		unknown bool
	}{
		{"running, asked running", "600\n", 0, true, true, false},
		{"running, asked gone", "600\n", 0, false, false, false},
		{"none (pgrep exit 1), asked gone", "", 1, false, true, false},
		{"none, asked running", "", 1, true, false, false},
		{"docker exec failed", "Error response from daemon: No such container", 125, false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fakeDocker(t, tt.out, tt.rc)
			ok, seen, err := nodeProcess("c-control-plane", "kube-controller-manager", tt.running)(context.Background())
			if tt.unknown {
				if !assert.IsUnknown(err) {
					t.Fatalf("a failed docker exec must be could-not-tell, got %v, %v (%s)", ok, err, seen)
				}
				return
			}
			if err != nil || ok != tt.want || seen == "" {
				t.Fatalf("got %v %q %v, want %v", ok, seen, err, tt.want)
			}
		})
	}
}
