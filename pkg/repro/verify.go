package repro

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/shell"
)

// RunLog is the file, next to the bundle, holding the output of its last run.
const RunLog = "repro-run.log"

var outcomeLine = regexp.MustCompile(`(?m)^OUTCOME: (\S+)`)

// Verify runs the bundle in dir (a cell's evidence directory) with env added
// to the script's environment, keeps its output in dir/repro-run.log, and
// writes the bundle again with the verification in its README. command is
// how the run was asked for, for the README. An error is a run that could
// not be started or judged; a run that ended on another verdict is not one.
func Verify(ctx context.Context, dir, command string, env []string, progress io.Writer) (*Verification, error) {
	c, log, _, err := Read(dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	out, runErr := shell.Run(ctx, shell.Cmd{Name: filepath.Join(dir, BundleDir, "repro.sh"), Env: env, Progress: progress})
	var failed *shell.Error
	if runErr != nil && errors.As(runErr, &failed) {
		out = failed.Output
	}
	if werr := os.WriteFile(filepath.Join(dir, RunLog), []byte(out), 0o644); werr != nil {
		return nil, werr
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("run %q: %w", dir, ctx.Err())
	}
	v := &Verification{At: start.UTC(), Command: command, Seconds: time.Since(start).Seconds(), Output: "../" + RunLog, Reached: runErr == nil}
	if m := outcomeLine.FindAllStringSubmatch(out, -1); len(m) > 0 {
		v.Outcome = m[len(m)-1][1]
	} else {
		v.Outcome = "no outcome (the script ended early: " + strings.TrimSpace(lastLine(out)) + ")"
		v.Reached = false
	}
	if v.Reached && v.Outcome != c.Outcome {
		v.Reached = false // exit 0 without the verdict: never taken as reached
	}
	return v, Write(dir, c, log, v)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
