package shell

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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
// compiler must not outlive the run (Ctrl-C, SIGTERM, a timeout), even one
// that ignores SIGTERM and keeps the command's output open. The test follows
// the grandchild through a fifo it holds open, as does the sleep it runs, so
// the fifo reads to its end when both have ended: events, not durations.
func TestCancelEndsTheProcessGroup(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// the grandchild ignores SIGTERM, as a busy build step may, says so, and
	// would say it survived if its sleep ran out
	grandchild := `trap "" TERM; exec 3>"$0"; echo ignoring TERM >&3; sleep 300; echo survived >&3`
	done := make(chan error, 1)
	go func() {
		// the delay before SIGKILL is short: the test waits on events, not on it
		_, err := run(ctx, Cmd{Name: "sh", Args: []string{"-c", `sh -c "$1" "$2" & wait`, "sh", grandchild, fifo}}, time.Millisecond)
		done <- err
	}()
	f, err := os.Open(fifo) // returns once the grandchild opened it
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	if line, err := r.ReadString('\n'); line != "ignoring TERM\n" {
		t.Fatalf("the grandchild said %q (%v), want that it ignores TERM", line, err)
	}
	cancel(errors.New("interrupted by test"))
	if err := <-done; err == nil || !strings.Contains(err.Error(), "interrupted by test") {
		t.Fatalf("err = %v, want the cancellation's cause", err)
	}
	// the end of the fifo: every holder of its write end, the grandchild and
	// its sleep, has ended
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Fatalf("the grandchild outlived the cancelled command: it said %q (%v)", rest, err)
	}
}
