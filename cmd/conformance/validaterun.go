package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// The known-answer runners (conform validate, upgrade-check validate) share
// these: which validations to run, the test binary, and a run of it.

// selectNamed is, of vs, those only names (comma-separated; "" for all), in
// vs' order; a name none has is bad input naming file.
func selectNamed[T any](vs []T, name func(T) string, only, command, file string) ([]T, error) {
	names := matrix.ParseList(only)
	for _, n := range names {
		if !slices.ContainsFunc(vs, func(v T) bool { return name(v) == n }) {
			return nil, &runner.BadInput{Err: fmt.Errorf("%s: no validation %q in %s", command, n, file)}
		}
	}
	if len(names) == 0 {
		return vs, nil
	}
	return slices.DeleteFunc(slices.Clone(vs), func(v T) bool { return !slices.Contains(names, name(v)) }), nil
}

// testBinary is the e2e test binary's absolute path; bad input when there
// is none.
func testBinary(path, command string) (string, error) {
	bin, err := filepath.Abs(path)
	if err != nil || !exists(bin) {
		return "", &runner.BadInput{Err: fmt.Errorf("%s: no e2e test binary %q (make bin/e2e.test)", command, path)}
	}
	return bin, nil
}

// runTestBinary runs the e2e test binary's test (the -test.run pattern) with
// flags from dir, its output to out: its exit status; an error only when it
// could not be run.
func runTestBinary(ctx context.Context, bin, test, dir string, flags []string, stdout, stderr io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, bin, append([]string{"-test.v", "-test.count=1", "-test.timeout", "90m", "-test.run", test}, flags...)...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return 0, err
		}
		return exit.ExitCode(), nil
	}
	return 0, nil
}
