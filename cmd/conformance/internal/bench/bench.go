package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/host"
)

// Machine is the line a benchmark's file opens with: when, on what, how
// loaded.
func Machine(now time.Time) string {
	return fmt.Sprintf("%s, %d cores, %s, load %s", now.UTC().Format(time.RFC3339), runtime.NumCPU(), memory(), host.LoadAverages())
}

// memory is the machine's memory in GiB, from /proc/meminfo.
func memory() string {
	b, _ := os.ReadFile("/proc/meminfo")
	for _, l := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(l, "MemTotal: %f kB", &kb); err == nil {
			return fmt.Sprintf("%.0f GiB", kb/(1<<20))
		}
	}
	return "? GiB"
}

// File is where a benchmark writes its figures:
// <reports>/benchmarks/<time>[-name].md.
func File(reports, name string, now time.Time) (string, error) {
	dir := filepath.Join(reports, "benchmarks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	base := now.UTC().Format("20060102-150405")
	if name != "" {
		base += "-" + name
	}
	return filepath.Join(dir, base+".md"), nil
}

// Log writes a benchmark's progress lines: "15:04:05 bench-delivery: ...".
type Log struct {
	Name string
	Out  io.Writer
}

// Printf writes one line.
func (l Log) Printf(format string, a ...any) {
	fmt.Fprintf(l.Out, "%s %s: %s\n", time.Now().Format("15:04:05"), l.Name, fmt.Sprintf(format, a...))
}

// Timings are named measurements in the order taken, printed as they come
// and rendered as a table.
type Timings struct {
	Out  io.Writer
	rows [][2]string
}

// Record prints and keeps one measurement.
func (t *Timings) Record(what string, d time.Duration) {
	fmt.Fprintf(t.Out, "%-58s %8.1f s\n", what, d.Seconds())
	t.rows = append(t.rows, [2]string{what, fmt.Sprintf("%.1f s", d.Seconds())})
}

// Note keeps a row that is not a time (a ratio).
func (t *Timings) Note(what, value string) { t.rows = append(t.rows, [2]string{what, value}) }

// Table is the measurements as a Markdown table.
func (t *Timings) Table() string {
	var b strings.Builder
	b.WriteString("| what | time |\n|---|---|\n")
	for _, r := range t.rows {
		fmt.Fprintf(&b, "| %s | %s |\n", r[0], r[1])
	}
	return b.String()
}
