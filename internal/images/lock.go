package images

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// lock is Locked for one of b's builds.
// It asks b.Space first, once the lock is held: a build that waited for
// another may find the disk that one filled.
func (b *Builder) lock(ctx context.Context, name string, fn func() error) error {
	return Locked(ctx, b.CacheDir, name, b.Out, func() error {
		if b.Space != nil {
			if err := b.Space(); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return fn()
	})
}

// Locked holds an exclusive lock on one piece of work (by name) under the
// cache directory for the time of fn: runs side by side (make matrix
// PARALLEL=N, one process per cluster) build an image once, or push it once
// into a shared registry, and the others wait and then find it done instead
// of doing it again into the same work files.
func Locked(ctx context.Context, cacheDir, name string, out io.Writer, fn func() error) error {
	dir := filepath.Join(cacheDir, "locks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, strings.NewReplacer("/", "_", ":", "_", " ", "_").Replace(name)+".lock")
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
			return fmt.Errorf("lock %q: %w", path, err)
		}
		if !said {
			fmt.Fprintf(out, "%s: another run holds it (building, pushing or checking it); waiting\n", name)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for another run's %s: %w", name, context.Cause(ctx))
		case <-time.After(time.Second):
		}
	}
	if d := time.Since(start); d > time.Second {
		fmt.Fprintf(out, "%s: waited %s for another run\n", name, d.Round(time.Second))
	}
	return fn()
}
