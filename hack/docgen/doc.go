// Command docgen writes the documentation made from the code and the data
// (`make docs`), so it cannot drift from them; `make verify` runs it into a
// temporary directory and fails on a stale page.
//
//   - docs/vocabulary.md: every exported function, method and type of the
//     packages scenarios are written in (pkg/env, pkg/check, pkg/fixture,
//     pkg/assert), with the first sentence of its doc comment;
//   - docs/results.md: each scenario of suites/matrix.yaml with its variants
//     and its expectations (the releases, versions and runs they were
//     measured on), and, given -report, the newest merged report;
//   - docs/writing-scenarios.md: its worked example is docs/example/example.go
//     verbatim (a package the module builds and tests);
//   - README.md: its table of scenarios, from suites/matrix.yaml (each
//     scenario's title and upstream issue) and the scenarios' directories;
//   - docs/design.md: its table of packages, a row per package from the
//     first sentence of its doc.go comment.
//   - docs/running.md: its table of what the main commands run and cost,
//     from the plan of each scenario's quick and full tier and of make
//     matrix, offline, at the scenarios' seconds: and the default build costs.
//   - docs/conform.md: its table of make conform's checks, and README.md
//     its line of them (how many, each with its seed scenario), from the
//     check registry (conform.Checks) and each class in a few words (classOf);
//   - docs/reports.md: its tables of report.json, a row per JSON field of
//     report.Report and the types it reaches (read by reflection), each
//     described in reportFields.
//   - docs/upgrade-check-findings.md: make upgrade-check's known answers, a
//     section per validation of suites/upgrade-check-validate.yaml (its
//     path, settings, verdicts, runs and why), then the hand-written notes
//     of suites/upgrade-check-notes.md.
//   - docs/upgrade-check-changes.md: the behaviour changes of ArgoCD a
//     verdict names (pkg/upgrade/changes), a section per change.
//
// Before it writes anything it checks the pages: every test a page of the
// checkout cites is a Test function of some _test.go (CheckTests), every
// verb of the vocabulary a page names exists (CheckMentions), no
// hand-written sentence states a newest version without a date or a source
// (CheckNewest), and no page counts make conform's classes by hand
// (CheckCounts).
//
// Run it from the repository's root: go run ./hack/docgen -out docs [-readme README.md] [-report dir].
package main
