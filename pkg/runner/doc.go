// Package runner plans, prepares, executes and settles the cells of a run and
// writes its report: the options (the run's flags, which the CLI and the
// test binary share; pkg/conform and pkg/upgrade register their own beside
// them) and their validation, several clusters at once (Parallel),
// bisect and sweep as runs. It is an ordinary package: the e2e test binary (the
// e2e-framework entry point, `go test -tags e2e ./suites`) and bisect call it;
// what it needs of the test framework is one Exec, which runs a feature.
//
// A run stops when its context is cancelled (Ctrl-C, SIGTERM, go test's
// -timeout): the running step is cancelled with every process it started, no
// further cell starts, the interrupted cell is ERROR "interrupted" and the
// cells not started are listed as not run.
package runner
