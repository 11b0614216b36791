package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
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

// A kind delete that fails once (Docker under load) is tried again; one that
// keeps failing is the error, after every retry.
func TestDeleteTriesAgain(t *testing.T) {
	defer func(d []time.Duration) { deleteRetries = d }(deleteRetries)
	deleteRetries = []time.Duration{time.Millisecond, time.Millisecond}
	dir := t.TempDir()
	kind := filepath.Join(dir, "kind")
	// fails while its count of calls is under FAILS
	fake := "#!/bin/sh\necho x >> \"$0.calls\"\n[ \"$(wc -l < \"$0.calls\")\" -gt \"$FAILS\" ] || { echo 'tried to kill container, but did not receive an exit event' >&2; exit 1; }\n"
	if err := os.WriteFile(kind, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fails, calls int
		ok           bool
	}{{0, 1, true}, {1, 2, true}, {2, 3, true}, {3, 3, false}} {
		os.Remove(kind + ".calls")
		t.Setenv("FAILS", fmt.Sprint(c.fails))
		err := Delete(context.Background(), Spec{Name: "gone", Kind: kind})
		data, _ := os.ReadFile(kind + ".calls")
		if calls := strings.Count(string(data), "\n"); calls != c.calls || (err == nil) != c.ok {
			t.Errorf("kind delete failing %d time(s): %d call(s), err %v; want %d, ok %t", c.fails, calls, err, c.calls, c.ok)
		}
	}
}
