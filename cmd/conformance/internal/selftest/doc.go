// Package selftest holds the harness's self-tests (conformance selftest
// fault|interrupt|mirror; make fault-test, interrupt-test, mirror-check):
// each drives real runs of the e2e test binary on a kind cluster of its own,
// does to them what a user or a failing machine does (an API server taken
// away, a Ctrl-C, an online pull through a registry mirror), and checks what
// the runs did about it from the reports they wrote (-reports: a directory
// per run, so the report read is the run's own) and from the machine (no
// process, container or cluster left).
//
// The parts that decide (a report's verdict against what a test expects, the
// pulls a mirror's evidence must show, the processes of a session) are plain
// functions with unit tests; the drivers around them need Docker.
package selftest
