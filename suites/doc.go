// Package suites is the spec of the matrix: matrix.yaml (which cells exist and
// what each is expected to show), Scenarios (the scenario functions by name)
// and, behind the e2e build tag, the e2e-framework entry point, TestMain and
// thin tests (TestMatrix, TestBisect, TestCluster, TestArgoCD). The entry
// point (`go test -tags e2e ./suites`) hands the cells to pkg/runner.
package suites
