package shell

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Cmd is one command to run.
type Cmd struct {
	Name  string
	Args  []string
	Env   []string // added to the process environment
	Dir   string
	Stdin io.Reader
	// Progress, if set, receives the output as it is produced (long builds).
	Progress io.Writer
}

// Error is a failed command.
type Error struct {
	Command string
	Output  string
	Err     error
}

func (e *Error) Error() string {
	out := strings.TrimSpace(e.Output)
	if lines := strings.Split(out, "\n"); len(lines) > 15 {
		out = "...\n" + strings.Join(lines[len(lines)-15:], "\n")
	}
	if out == "" {
		return fmt.Sprintf("%s: %v", e.Command, e.Err)
	}
	return fmt.Sprintf("%s: %v\n%s", e.Command, e.Err, out)
}

func (e *Error) Unwrap() error { return e.Err }

// waitDelay is how long a cancelled command's process group has between
// SIGTERM and SIGKILL.
const waitDelay = 5 * time.Second

// Run runs c and returns its combined output. The command runs in a process
// group of its own: when ctx is cancelled the whole group is ended (SIGTERM,
// then SIGKILL after waitDelay), so a build script's compiler or docker client
// does not outlive the run that started it.
func Run(ctx context.Context, c Cmd) (string, error) {
	return run(ctx, c, waitDelay)
}

// run is Run with delay between SIGTERM and SIGKILL (a test's is short).
func run(ctx context.Context, c Cmd, delay time.Duration) (string, error) {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = delay
	cmd.Dir = c.Dir
	cmd.Stdin = c.Stdin
	if len(c.Env) > 0 {
		cmd.Env = append(os.Environ(), c.Env...)
	}
	var buf bytes.Buffer
	var w io.Writer = &buf
	if c.Progress != nil {
		w = io.MultiWriter(&buf, c.Progress)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return "", &Error{Command: c.String(), Err: err}
	}
	groups.add(cmd.Process.Pid)
	err := cmd.Wait()
	groups.remove(cmd.Process.Pid)
	if ctx.Err() != nil {
		// whatever of the group ignored SIGTERM goes now
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", context.Cause(ctx), err)
		}
		return buf.String(), &Error{Command: c.String(), Output: buf.String(), Err: err}
	}
	return buf.String(), nil
}

// groups are the process groups of the commands running now.
var groups = &running{pids: map[int]bool{}}

type running struct {
	mu   sync.Mutex
	pids map[int]bool
}

func (r *running) add(pid int)    { r.mu.Lock(); r.pids[pid] = true; r.mu.Unlock() }
func (r *running) remove(pid int) { r.mu.Lock(); delete(r.pids, pid); r.mu.Unlock() }

// KillAll ends the process group of every command running now (SIGKILL) and
// returns how many there were: for a process about to exit without waiting
// for them (a second Ctrl-C), so none is left running behind it.
func KillAll() int {
	groups.mu.Lock()
	defer groups.mu.Unlock()
	for pid := range groups.pids {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	return len(groups.pids)
}

// Output runs a command and returns its combined output.
func Output(ctx context.Context, name string, args ...string) (string, error) {
	return Run(ctx, Cmd{Name: name, Args: args})
}

// Env runs a command with extra environment variables.
func Env(ctx context.Context, env []string, name string, args ...string) (string, error) {
	return Run(ctx, Cmd{Name: name, Args: args, Env: env})
}

// String renders the command as a line to paste into a shell.
func (c Cmd) String() string {
	var parts []string
	if c.Dir != "" {
		parts = append(parts, "cd "+quote(c.Dir)+" &&")
	}
	for _, e := range c.Env {
		parts = append(parts, quote(e))
	}
	parts = append(parts, quote(c.Name))
	for _, a := range c.Args {
		parts = append(parts, quote(a))
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"$`\\|&;<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// LastLine is the last non-blank line of a command's output: the line that
// usually says what went wrong.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
