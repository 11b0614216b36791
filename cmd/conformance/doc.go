// Command conformance is the suite's front end for what needs no cluster:
// listing the matrix and validating a selection before anything starts (the
// same validation the e2e test binary runs, pkg/runner.Validate). `make e2e`,
// `make bisect` and `make sweep` run cells through the e2e test binary
// (`go test -tags e2e ./suites`), which hands them to pkg/runner.
package main
