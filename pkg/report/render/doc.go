// Package render turns a run's report (pkg/report's data model) into what
// people read: report.md, report.html and junit.xml beside report.json, and
// the Markdown job summary of a CI run.
package render
