// Package bench holds the suite's benchmarks (conformance bench
// quick|matrix|infra|delivery|builds; make bench-quick, bench, bench-infra,
// bench-delivery, bench-builds): each runs what it measures for real, prints its figures
// and writes them to reports/benchmarks/<time>-<name>.md. Runs of the e2e
// test binary (or make e2e) write their reports under a directory of their
// own (-reports), so the report a benchmark reads is the one its run wrote.
//
// What decides and formats (budgets, ratios, the tables) is plain functions
// with unit tests; the drivers need Docker and kind.
package bench
