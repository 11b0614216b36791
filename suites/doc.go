// Package suites is the spec of the matrix: matrix.yaml (which cells exist and
// what each is expected to show) and the scenarios that run them. Behind the
// e2e build tag, its TestMain is the e2e-framework entry point
// (`go test -tags e2e ./suites`) that hands the cells to pkg/runner.
package suites
