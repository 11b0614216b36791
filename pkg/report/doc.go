// Package report is the run's data model: report.json (the format
// docs/reports.md documents) with its load and save, each cell's verdict
// against its expectation (Cell.Settle), and several runs' reports merged
// into one matrix (Merge).
//
// What reads the model lives beside it and imports it, never the other way:
// pkg/report/render renders a report (Markdown, HTML, JUnit, the job
// summary), pkg/report/nightly sets runs side by side (the nightly's diff
// and history, a benchmark's compare).
package report
