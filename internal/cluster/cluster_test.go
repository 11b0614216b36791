package cluster

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Three clusters set up at once on a new machine each build kind; all get
// it (run 20261127-123742: two of three failed on a shared directory). A
// fake go writes the binary after a pause, so the builds overlap.
func TestKindBinaryBuiltSideBySide(t *testing.T) {
	bin := t.TempDir()
	fake := "#!/bin/sh\nsleep 0.2\nprintf kind > \"$GOBIN/kind\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	dir := filepath.Join(t.TempDir(), "bin")
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = KindBinary(context.Background(), dir, "v0.33.0")
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("cluster %d: %v", i+1, err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 1 || filepath.Base(left[0]) != "kind-v0.33.0" {
		t.Errorf("left in %s: %v, want only kind-v0.33.0", dir, left)
	}
}
