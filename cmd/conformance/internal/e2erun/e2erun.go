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
	"sync/atomic"
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

// Interrupts takes SIGINT and SIGTERM for a command that drives runs (a
// self-test, a benchmark) until Stop: each signal is forwarded to the run
// started last through it (to its process group: the run sits in a session
// of its own, so a terminal's Ctrl-C reaches this process only), which then
// stops, reports and cleans up as at a terminal; a second Ctrl-C is
// forwarded too (the run then ends without waiting for its cleanup). A
// signal while no run is under way cancels the context Watch returned, so
// the step in between (a build, a push) ends.
type Interrupts struct {
	ch      chan os.Signal
	current atomic.Pointer[Run]
	got     chan struct{}
	quit    chan struct{}
	cancel  context.CancelCauseFunc
}

// Watch starts taking the signals; ctx is cancelled by one that comes while
// no run is under way.
func Watch(ctx context.Context) (context.Context, *Interrupts) {
	ctx, cancel := context.WithCancelCause(ctx)
	in := &Interrupts{ch: make(chan os.Signal, 2), got: make(chan struct{}), quit: make(chan struct{}), cancel: cancel}
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		first := true
		for {
			select {
			case <-in.ch:
				if first {
					close(in.got)
					first = false
				}
				if r := in.current.Load(); r != nil {
					select {
					case <-r.done:
						in.cancel(errors.New("interrupted"))
					default:
						r.Signal(syscall.SIGINT)
					}
				} else {
					in.cancel(errors.New("interrupted"))
				}
			case <-in.quit:
				return
			}
		}
	}()
	return ctx, in
}

// Start starts r; signals go to it from now on.
func (in *Interrupts) Start(r *Run) error {
	if err := r.Start(); err != nil {
		return err
	}
	in.current.Store(r)
	return nil
}

// Exec starts r and waits for its end.
func (in *Interrupts) Exec(r *Run) (int, error) {
	if err := in.Start(r); err != nil {
		return 0, err
	}
	return r.Wait()
}

// Interrupted reports whether a signal came.
func (in *Interrupts) Interrupted() bool {
	select {
	case <-in.got:
		return true
	default:
		return false
	}
}

// Stop stops taking the signals.
func (in *Interrupts) Stop() {
	signal.Stop(in.ch)
	close(in.quit)
	in.cancel(nil)
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
	run, err := filepath.EvalSymlinks(filepath.Join(dir, "latest"))
	if err != nil {
		return nil, fmt.Errorf("load the run's report: %w", err)
	}
	return report.LoadDir(run)
}
