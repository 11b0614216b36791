// Package suites is the spec of the matrix: matrix.yaml (which cells exist and
// what each is expected to show), Scenarios (the scenario functions by name)
// and, behind the e2e build tag, the e2e-framework entry point, TestMain and
// thin tests (TestMatrix, TestConform, TestUpgradeCheck, TestBisect,
// TestCluster, TestArgoCD). The entry
// point (`go test -tags e2e ./suites`) hands the cells to pkg/runner.
//
// It also holds the seed projects' charts as the scenarios install them, in
// one chart spec (Chart): conform.yaml, make conform-validate's charts and
// their known answers (Validations), and upgrade-check.yaml, make
// upgrade-check's default Applications (SeedApps).
package suites
