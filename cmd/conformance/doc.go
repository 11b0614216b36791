// Command conformance is the CLI for what needs no cluster: list, check and
// plan (listing the matrix, validating a selection before anything starts,
// pricing it), releases, report
// merge|render|summary|phases|compare|diff|history|nightly-merge|publish|night,
// registry start|push|stop|nodes, repro run, conform validate|table,
// upgrade-check check|apps, tested-ranges, cluster delete and catalog
// defaults. Its commands are one table (commands.go): each one's -h and docs/cli.md come
// from it. Its check is the validation the e2e test binary runs too
// (pkg/runner.Validate). `make e2e`, `make bisect` and `make sweep` run cells
// through the e2e test binary (`go test -tags e2e ./suites`), which hands
// them to pkg/runner.
package main
