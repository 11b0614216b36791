package shell

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestCmdString(t *testing.T) {
	c := Cmd{Name: "docker", Args: []string{"run", "--name", "a b", "it's"}, Env: []string{"X=1"}, Dir: "/tmp"}
	want := `cd /tmp && X=1 docker run --name 'a b' 'it'\''s'`
	if got := c.String(); got != want {
		t.Fatalf("String() = %s, want %s", got, want)
	}
}

func TestRunErrorIsPasteable(t *testing.T) {
	_, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "echo boom; exit 3"}})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %v", err)
	}
	if !strings.HasPrefix(err.Error(), "sh -c 'echo boom; exit 3': exit status 3") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("error = %q", err)
	}
}

// A cancelled command ends with its whole process group: a build script's
// compiler must not outlive the run (Ctrl-C, SIGTERM, a timeout).
func TestCancelEndsTheProcessGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancelCause(context.Background())
	// cancel once the grandchild's pid is written: the shell creates the file
	// before echo writes to it, and pid 0 would name this test's own group
	readPID := func() int {
		data, _ := os.ReadFile(pidfile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		return pid
	}
	go func() {
		for readPID() <= 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel(errors.New("interrupted by test"))
	}()
	start := time.Now()
	// the grandchild ignores SIGTERM, as a busy build step may
	_, err := Run(ctx, Cmd{Name: "sh", Args: []string{"-c", `sh -c 'trap "" TERM; sleep 300' & echo $! > ` + pidfile + `; wait`}})
	if err == nil || !strings.Contains(err.Error(), "interrupted by test") {
		t.Fatalf("err = %v, want the cancellation's cause", err)
	}
	if d := time.Since(start); d > waitDelay+3*time.Second {
		t.Errorf("Run returned after %s", d)
	}
	pid := readPID()
	if pid <= 0 {
		t.Fatalf("no grandchild pid in %s", pidfile)
	}
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d survived the cancellation", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
