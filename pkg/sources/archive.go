package sources

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// Extract unpacks a .tar.gz once into under/<name>-<sha256 prefix>/ and
// returns that directory and the archive's sha256 prefix. Only regular files
// and directories are written, none outside the destination. The commit a
// `git archive` recorded in it is kept beside (see TreeCommit).
func Extract(archive, under string) (string, string, error) {
	data, err := os.ReadFile(archive)
	if err != nil {
		return "", "", err
	}
	h := sha256.Sum256(data)
	sum := hex.EncodeToString(h[:])[:16]
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(archive), ".tgz"), ".tar.gz")
	dest := filepath.Join(under, name+"-"+sum)
	if err := os.MkdirAll(under, 0o755); err != nil {
		return "", "", err
	}
	// one extraction at a time: a run's prebuild and its install, or runs
	// side by side, find the other's done instead of replacing it in use
	lock, err := os.OpenFile(dest+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", "", err
	}
	defer lock.Close() // releases the lock
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", "", fmt.Errorf("lock %s: %w", dest+".lock", err)
	}
	if _, err := os.Stat(filepath.Join(dest, ".extracted")); err == nil {
		// extractions made before the commit was recorded get it now
		if err := recordCommit(data, dest); err != nil {
			return "", "", fmt.Errorf("read the commit of %s: %w", archive, err)
		}
		return dest, sum, nil
	}
	tmp, err := os.MkdirTemp(under, name+".tmp-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	if err := untar(bytes.NewReader(data), tmp); err != nil {
		return "", "", fmt.Errorf("extract %s: %w", archive, err)
	}
	if err := recordCommit(data, tmp); err != nil {
		return "", "", fmt.Errorf("read the commit of %s: %w", archive, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".extracted"), []byte(archive+"\n"), 0o644); err != nil {
		return "", "", err
	}
	if err := os.RemoveAll(dest); err != nil { // an extraction left incomplete
		return "", "", fmt.Errorf("replace %s: %w", dest, err)
	}
	if err := os.Rename(tmp, dest); err != nil {
		return "", "", err
	}
	return dest, sum, nil
}

func untar(r io.Reader, dest string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(hdr.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("entry %q leaves the archive's directory", hdr.Name)
		}
		path := filepath.Join(dest, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// commitFile is where Extract records the commit an archive was made from,
// next to its .extracted mark (outside the tree when the tree is one
// directory down, as `git archive --prefix` lays it out).
const commitFile = ".git-commit"

var commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// archiveCommit is the commit `git archive` wrote into a .tar.gz's pax global
// header (what `git get-tar-commit-id` reads), or "" when the archive carries
// none (GitHub's archives carry it too; a tar made by hand does not).
func archiveCommit(data []byte) (string, error) {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", err
	}
	hdr, err := tar.NewReader(gz).Next()
	if errors.Is(err, io.EOF) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if c := strings.TrimSpace(hdr.PAXRecords["comment"]); hdr.Typeflag == tar.TypeXGlobalHeader && commitID.MatchString(c) {
		return c, nil
	}
	return "", nil
}

// TreeCommit is the git commit a tree from Trees was made from, and how it
// is known: a checkout's HEAD (git rev-parse), or the commit its archive
// recorded (see archiveCommit). "" when neither says (an archive made
// without git, a copied directory): the caller then says it does not know.
func TreeCommit(ctx context.Context, dir string) (commit, how string, err error) {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
		if err != nil {
			return "", "", fmt.Errorf("git -C %s rev-parse HEAD: %w", dir, err)
		}
		return strings.TrimSpace(string(out)), "the checkout's HEAD", nil
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if !fileExists(filepath.Join(d, ".extracted")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(d, commitFile))
		if errors.Is(err, os.ErrNotExist) {
			return "", "", nil
		}
		if err != nil {
			return "", "", err
		}
		return strings.TrimSpace(string(data)), "the archive's pax header (git get-tar-commit-id)", nil
	}
	return "", "", nil
}

// recordCommit writes the archive's commit next to its extraction, once.
func recordCommit(data []byte, dest string) error {
	path := filepath.Join(dest, commitFile)
	if fileExists(path) {
		return nil
	}
	c, err := archiveCommit(data)
	if err != nil || c == "" {
		return err
	}
	return os.WriteFile(path, []byte(c+"\n"), 0o644)
}
