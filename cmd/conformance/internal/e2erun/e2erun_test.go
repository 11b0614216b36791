package e2erun

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A run ended by SIGINT has exit status 130, as a shell reports it; its
// output is in its log.
func TestRunStatusAndOutput(t *testing.T) {
	dir := t.TempDir()
	r := &Run{Bin: "sh", Dir: dir, Args: []string{"-c", "echo started; exec sleep 30"}, Log: filepath.Join(dir, "log")}
	if err := r.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	for i := 0; i < 100 && !strings.Contains(r.Output(), "started"); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	r.Signal(syscall.SIGINT)
	rc, err := r.Wait()
	if err != nil || rc != 130 {
		t.Fatalf("exit %d, %v; want 130", rc, err)
	}
	if r.Tail(1) != "started" {
		t.Errorf("Tail(1) = %q", r.Tail(1))
	}
	ok := &Run{Bin: "sh", Dir: dir, Args: []string{"-c", "exit 3"}, Log: filepath.Join(dir, "log2")}
	if rc, err := ok.Exec(); err != nil || rc != 3 {
		t.Errorf("exit %d, %v; want 3", rc, err)
	}
}

// The report read is the one under the run's own -reports directory.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "20261128-010203")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "report.json"), []byte(`{"run_id":"20261128-010203","cells":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Report(dir); err == nil {
		t.Fatal("Report without a latest link: no error")
	}
	if err := os.Symlink("20261128-010203", filepath.Join(dir, "latest")); err != nil {
		t.Fatal(err)
	}
	r, err := Report(dir)
	if err != nil || r.RunID != "20261128-010203" || filepath.Base(r.Dir) != "20261128-010203" {
		t.Fatalf("Report = %+v, %v", r, err)
	}
}
