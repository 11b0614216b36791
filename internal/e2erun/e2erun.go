package e2erun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
)

// Run is a command (the e2e test binary, make) started in a session of its
// own, so every process it starts can be found by its session id and
// signalled as a group, as a terminal's Ctrl-C signals a foreground job.
// Its output goes into Log (and Echo, if set).
type Run struct {
	Bin  string
	Dir  string
	Args []string
	Log  string    // the run's output
	Echo io.Writer // also written here, if set

	cmd  *exec.Cmd
	done chan struct{}
	rc   int
	err  error
}

// E2E is a run of the e2e test binary bin (absolute) in the checkout's
// suites/, as make runs it.
func E2E(bin, repo, log string, args ...string) *Run {
	return &Run{Bin: bin, Dir: filepath.Join(repo, "suites"), Args: args, Log: log}
}

// Start starts the run.
func (r *Run) Start() error {
	if err := os.MkdirAll(filepath.Dir(r.Log), 0o755); err != nil {
		return fmt.Errorf("start %s: %w", r.Bin, err)
	}
	f, err := os.Create(r.Log)
	if err != nil {
		return fmt.Errorf("start %s: %w", r.Bin, err)
	}
	r.cmd = exec.Command(r.Bin, r.Args...)
	r.cmd.Dir = r.Dir
	var w io.Writer = f
	if r.Echo != nil {
		w = io.MultiWriter(f, r.Echo)
	}
	r.cmd.Stdout, r.cmd.Stderr = w, w
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := r.cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", r.Bin, err)
	}
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		defer f.Close()
		err := r.cmd.Wait()
		r.rc = ExitStatus(r.cmd.ProcessState)
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			r.err = err
		}
	}()
	return nil
}

// ExitStatus is a process's exit status as a shell reports it: 128+N when
// signal N ended it (130: SIGINT).
func ExitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// Session is the run's session id (its first process's pid).
func (r *Run) Session() int { return r.cmd.Process.Pid }

// Signal sends sig to the run's process group, as a terminal does.
func (r *Run) Signal(sig syscall.Signal) { _ = syscall.Kill(-r.cmd.Process.Pid, sig) }

// Done is closed when the run has exited.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait waits for the run's end and returns its exit status.
func (r *Run) Wait() (int, error) {
	<-r.done
	return r.rc, r.err
}

// Exec starts the run and waits for its end.
func (r *Run) Exec() (int, error) {
	if err := r.Start(); err != nil {
		return 0, err
	}
	return r.Wait()
}

// Output is what the run has written so far.
func (r *Run) Output() string {
	b, _ := os.ReadFile(r.Log)
	return string(b)
}

// Tail is the last n lines of the run's output.
func (r *Run) Tail(n int) string { return Tail(r.Output(), n) }

// Tail is the last n lines of s.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Interrupts forwards SIGINT and SIGTERM sent to this process to the run
// current returns (to its process group: the run sits in a session of its
// own, so a terminal's Ctrl-C reaches this process only) until stop is
// called. A second Ctrl-C is forwarded too: the run then ends without
// waiting for its cleanup, as it would at a terminal. interrupted reports
// whether a signal came.
func Interrupts(current func() *Run) (interrupted func() bool, stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	got := make(chan struct{})
	quit := make(chan struct{})
	go func() {
		first := true
		for {
			select {
			case <-ch:
				if first {
					close(got)
					first = false
				}
				if r := current(); r != nil && r.cmd != nil && r.cmd.Process != nil {
					r.Signal(syscall.SIGINT)
				}
			case <-quit:
				return
			}
		}
	}()
	interrupted = func() bool {
		select {
		case <-got:
			return true
		default:
			return false
		}
	}
	return interrupted, func() { signal.Stop(ch); close(quit) }
}

// WaitFor polls ready every second until it holds, the run ends, or limit
// passes; it reports whether ready held.
func WaitFor(ctx context.Context, limit time.Duration, r *Run, ready func() bool) bool {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if ready() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-r.Done():
			return ready()
		case <-time.After(time.Second):
		}
	}
	return false
}

// Report loads the report a run wrote under dir (its -reports): dir/latest.
func Report(dir string) (*report.Report, error) {
	return report.LoadDir(filepath.Join(dir, "latest"))
}
