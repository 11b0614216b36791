// Package report is the run's data model (report.json, the format docs/reports.md
// documents) and its renderings: Markdown, HTML and JUnit.
package report
