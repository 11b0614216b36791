// Package repro records what a cell's steps did, in the terms a standalone
// reproduction uses (kubectl, a git push, a rendered chart), and turns that
// record into a bundle an upstream maintainer can run without the suite:
// README.md, the manifests and repository contents the cell applied, and
// repro.sh, which recreates the cell on a new kind cluster and checks its
// symptom with plain kubectl.
//
// The record is written as the steps run (pkg/env's verbs and pkg/assert's
// waits and verdicts call Record), so the script cannot drift from the cell.
// Values the cell made at run time that are credentials or keys (Generated)
// never enter the record: the script makes its own.
package repro
