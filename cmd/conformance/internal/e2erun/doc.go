// Package e2erun runs a command of the suite as a subprocess the way a user
// at a terminal does, for the commands that drive whole runs (the
// self-tests, the benchmarks): the e2e test binary (or make) in a session
// of its own, its output in a log file, a Ctrl-C forwarded to its process
// group, its exit status (130 when a signal ended it), and the report it
// wrote under the -reports directory it was given, so the report read is
// the run's own and never the newest one found.
package e2erun
