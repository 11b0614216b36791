package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/internal/kube"
)

// End writes the cell's evidence (kubectl's failures as the files' content)
// and steps.txt; when a file cannot be written, the cell fails with why
// instead of ending as if its evidence were there.
func TestEndFailsTheCellWhoseEvidenceIsNotWritten(t *testing.T) {
	r := &Run{Kubectl: kube.Kubectl{Bin: "false"}}

	dir := t.TempDir()
	_, c := WithCell(context.Background(), dir)
	c.Step("one step")
	c.WriteEvidence(filepath.Join("sub", "applied-x.yaml"), "kind: X\n")
	if err := r.End(context.Background(), c); err != nil {
		t.Fatalf("End in a writable directory: %v", err)
	}
	for _, f := range []string{"steps.txt", "applications.yaml", filepath.Join("sub", "applied-x.yaml")} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}

	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, c = WithCell(context.Background(), filepath.Join(file, "cell"))
	c.Defer("a cleanup", func(context.Context) error { return nil })
	err := r.End(context.Background(), c)
	if err == nil || !strings.Contains(err.Error(), "evidence not written") || !strings.Contains(err.Error(), "steps.txt") {
		t.Fatalf("End under a regular file: %v, want evidence not written naming steps.txt", err)
	}
	if r.Dirty {
		t.Error("evidence that was not written leaves the cluster as clean as its cleanups did")
	}
}

// A namespace watched brings its events into the evidence: what the
// workloads in it did (a CronJob's runs, say), which no object of the
// cell's names.
func TestAWatchedNamespacesEventsAreEvidence(t *testing.T) {
	r := &Run{Kubectl: kube.Kubectl{Bin: "false"}}
	dir := t.TempDir()
	_, c := WithCell(context.Background(), dir)
	c.Watch("namespace", "", "demo")
	r.DumpEvidence(context.Background(), c, "on-v1")
	for _, f := range []string{"events-argocd.txt", "events-demo.txt", "namespace-demo.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, "on-v1", f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
