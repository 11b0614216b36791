package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Disk is the free space of one filesystem the suite writes to.
type Disk struct {
	Path string // the directory it was read at
	What string // what the suite keeps there
	Free uint64 // bytes available to the suite
}

// DiskMin is the free space below which a run is refused before anything
// starts: a node image, an ArgoCD build or one `kind load` (a docker save
// into the temporary directory) needs a few GiB, and a run that fills the disk
// half-way ends its cells ERROR with "no space left on device" (seen here:
// run 20261124-142207, ten cells; make test's fault-test on 2026-11-26).
const DiskMin = 4 << 30

// DiskLow is the free space below which the preflight says that a cold run
// may not fit (every image built at once takes 20-30 GiB with Go's build cache).
const DiskLow = 15 << 30

// DefaultDockerRoot is Docker's data root unless its daemon is configured
// otherwise; the preflight reads it there when no engine answers yet (a new
// machine, before the suite starts one).
const DefaultDockerRoot = "/var/lib/docker"

// DiskPaths are where the suite writes: Docker's data root (images, kind
// nodes; the running engine's DockerRootDir), the suite's cache and the
// temporary directory.
func DiskPaths(dockerRoot, cacheDir string) []Disk {
	return []Disk{
		{Path: dockerRoot, What: "Docker's images and kind nodes"},
		{Path: cacheDir, What: "the suite's build cache"},
		{Path: os.TempDir(), What: "temporary files: kind load's image archives"},
	}
}

// readDisks fills in each path's free space, one entry per filesystem (the
// first path on it names it). A path not made yet is read at its nearest
// existing parent; one that cannot be read is left out.
func readDisks(paths []Disk) []Disk {
	var out []Disk
	seen := map[[2]int32]bool{}
	for _, d := range paths {
		if d.Path == "" {
			continue
		}
		dir := d.Path
		var st syscall.Statfs_t
		for {
			if err := syscall.Statfs(dir, &st); err == nil {
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				dir = ""
				break
			}
			dir = parent
		}
		if dir == "" || seen[st.Fsid.X__val] {
			continue
		}
		seen[st.Fsid.X__val] = true
		d.Free = st.Bavail * uint64(st.Bsize)
		out = append(out, d)
	}
	return out
}

// DiskSpace reads the free space of disks again (Facts.Disks, from the
// preflight) and returns the one line that diskProblem gives, as an error,
// when one is now under DiskMin. The preflight reads the disks once; a long
// run on a shared disk can still fill it (2026-11-26: 45 GB free at 07:04,
// 282 MB at 08:38, while a build ran), so each build asks again before it
// writes rather than ending half-way with "no space left on device".
func DiskSpace(disks []Disk) error {
	if problem := diskProblem(readDisks(disks)); problem != "" {
		return errors.New(problem)
	}
	return nil
}

// diskProblem is the one line that refuses a run on a full disk, or "".
func diskProblem(disks []Disk) string {
	for _, d := range disks {
		if d.Free < DiskMin {
			return fmt.Sprintf("only %s free on %s (%s): a run needs at least %s there; free space (docker system prune, go clean -cache, make cluster-delete) and run again",
				gib(d.Free), d.Path, d.What, gib(DiskMin))
		}
	}
	return ""
}

// diskWarnings are lines for disks that are low but not full.
func diskWarnings(disks []Disk) []string {
	var out []string
	for _, d := range disks {
		if d.Free >= DiskMin && d.Free < DiskLow {
			out = append(out, fmt.Sprintf("only %s free on %s (%s): a cold run, building every image, may need %s or more",
				gib(d.Free), d.Path, d.What, gib(DiskLow)))
		}
	}
	return out
}

func gib(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
