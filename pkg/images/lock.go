package images

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// lock holds an exclusive lock on one build (by name) under the cache
// directory for the time of fn: runs side by side (make matrix PARALLEL=N,
// one process per cluster) build an image once, and the others wait and then
// find it cached instead of building it again into the same work files.
func (b *Builder) lock(ctx context.Context, name string, fn func() error) error {
	dir := filepath.Join(b.CacheDir, "locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, strings.NewReplacer("/", "_", ":", "_").Replace(name)+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // closing the file releases the lock
	start := time.Now()
	for said := false; ; said = true {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK {
			return fmt.Errorf("lock %s: %w", path, err)
		}
		if !said {
			fmt.Fprintf(b.Out, "%s: another run is building it; waiting for that build\n", name)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for another run's build of %s: %w", name, context.Cause(ctx))
		case <-time.After(time.Second):
		}
	}
	if d := time.Since(start); d > time.Second {
		fmt.Fprintf(b.Out, "%s: waited %s for another run's build\n", name, d.Round(time.Second))
	}
	return fn()
}
