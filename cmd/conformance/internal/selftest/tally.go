package selftest

import (
	"fmt"
	"io"
	"time"
)

// Log writes a test's progress lines: "15:04:05 fault-test: ...".
type Log struct {
	Name string // fault-test
	Out  io.Writer
}

// Printf writes one line.
func (l Log) Printf(format string, a ...any) {
	fmt.Fprintf(l.Out, "%s %s: %s\n", time.Now().Format("15:04:05"), l.Name, fmt.Sprintf(format, a...))
}

// Tally counts a test's checks and prints each as it is decided.
type Tally struct {
	Log            Log
	Passed, Failed int
}

// Check records one check: ok, or a failure, with what it saw.
func (t *Tally) Check(ok bool, format string, a ...any) bool {
	if ok {
		t.Passed++
		t.Log.Printf("ok: "+format, a...)
	} else {
		t.Failed++
		t.Log.Printf("FAIL: "+format, a...)
	}
	return ok
}

// Summary is the last line a test prints, which CI reads:
// "interrupt-test: 12 passed, 0 failed".
func (t *Tally) Summary() string {
	return fmt.Sprintf("%s: %d passed, %d failed", t.Log.Name, t.Passed, t.Failed)
}
