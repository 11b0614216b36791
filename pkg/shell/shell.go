// Package shell runs external commands (docker, kind, go, the image recipes).
// A failure carries the command as one pasteable line and the tail of its output.
package shell

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
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

// Run runs c and returns its combined output.
func Run(ctx context.Context, c Cmd) (string, error) {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
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
	if err := cmd.Run(); err != nil {
		return buf.String(), &Error{Command: c.String(), Output: buf.String(), Err: err}
	}
	return buf.String(), nil
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
