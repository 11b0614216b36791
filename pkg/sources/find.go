package sources

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Look is what Find looks for, and how far.
type Look struct {
	// Is tells a directory sought from any other by its files: read gives
	// a file's content (slash path relative to the directory) and whether
	// it is there. In an archive only the files whose base name is in Read
	// have content; the others are there, empty. It returns what the
	// directory is ("kruise 1.5.2"). A directory found is not looked below
	// (a chart's subcharts are not charts found).
	Is   func(read func(file string) ([]byte, bool)) (what string, ok bool)
	Read []string
	// Depth is how far below where it looks a directory is looked for:
	// 0 there only; 1 there and one directory down (a tree at an archive's
	// top or under its prefix, as `git archive --prefix` and GitHub lay it
	// out); 5 (a charts repository's versions/kruise/1.5.2 in an archive).
	Depth int
	// Named, when set, narrows where a directory is looked in to its own
	// entries that Named accepts (subdirectories by name, archives by name
	// without .tar.gz/.tgz), and to itself when its own name is accepted: a
	// tree per tag, argo-cd-v3.5.1/ or argo-cd-v3.5.1.tar.gz. An archive
	// given itself must be named so too. Unset: the directory itself and
	// every archive in it.
	Named func(name string) bool
}

// Found is a directory Find found.
type Found struct {
	Src     string // where Find looked (the directory or archive it was given)
	Archive string // the archive it is in; "" for a directory on disk
	Dir     string // on disk; or, in Archive, its slash path ("." the top)
	What    string // what Look.Is said it is
}

// String says where f is, for a listing: "directory /x/argo-cd-v3.5.1",
// "archive charts.tar.gz, at charts/versions/kruise/1.5.2" (an archive by
// its path in Src, or its name when it is Src: Src says the rest).
func (f Found) String() string {
	switch {
	case f.Archive == "":
		return "directory " + f.Dir
	case f.Dir == ".":
		return "archive " + f.archive()
	}
	return "archive " + f.archive() + ", at " + f.Dir
}

func (f Found) archive() string {
	if rel, err := filepath.Rel(f.Src, f.Archive); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return filepath.Base(f.Archive)
}

// From says where f is, found where the environment variable env points:
// "ARGOCD_SOURCES=/x (archive /x/argo-cd-v3.5.1.tar.gz)".
func (f Found) From(env string) string {
	return fmt.Sprintf("%s=%s (%s)", env, f.Src, f)
}

// Open is f's directory on this machine: f.Dir, or, in an archive, the
// archive extracted once under cache (Extract) and f.Dir in it. how says
// where it came from, for a report: "directory /x/argo-cd-v3.5.1",
// "archive argo-cd-v3.5.1.tar.gz, sha256 <prefix>, extracted to <dir>".
func (f Found) Open(cache string) (dir, how string, err error) {
	if f.Archive == "" {
		return f.Dir, f.String(), nil
	}
	out, sum, err := Extract(f.Archive, cache)
	if err != nil {
		return "", "", err
	}
	dir = filepath.Join(out, filepath.FromSlash(f.Dir))
	return dir, fmt.Sprintf("archive %s, sha256 %s, extracted to %s", f.archive(), sum, dir), nil
}

// Find is the one place the suite looks for something a user provides in a
// directory or an archive: a source tree at a tag, a Helm chart. src is
// either
//   - a directory: Find looks in it (Look.Named: in its named entries, and in
//     itself when named) to look.Depth; when nothing is found there, in each
//     .tar.gz/.tgz archive directly in it (Named: the named ones), in name
//     order;
//   - or such an archive: Find looks in it, from its top.
//
// Archives are read, never extracted (Found.Open extracts one). Hidden
// directories (.git) are not looked in. Everything found is returned, in
// the order looked (in each place nearest the top first, then by name);
// none found is no error. An error is a src that is neither, or an archive
// that cannot be read.
func Find(src string, look Look) ([]Found, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		stem, ok := archiveStem(filepath.Base(src))
		if !ok {
			return nil, errors.New("neither a directory nor a .tar.gz/.tgz archive")
		}
		if look.Named != nil && !look.Named(stem) {
			return nil, nil
		}
		return inArchive(src, src, look)
	}
	var places []string
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	if look.Named != nil {
		for _, e := range entries {
			if e.IsDir() && look.Named(e.Name()) {
				places = append(places, filepath.Join(src, e.Name()))
			}
		}
	}
	if look.Named == nil || look.Named(filepath.Base(src)) {
		places = append(places, src)
	}
	var found []Found
	for _, p := range places {
		for _, d := range walk(disk(p), look) {
			found = append(found, Found{Src: src, Dir: filepath.Join(p, filepath.FromSlash(d.dir)), What: d.what})
		}
	}
	if len(found) > 0 {
		return found, nil
	}
	for _, e := range entries {
		stem, ok := archiveStem(e.Name())
		if !ok || e.IsDir() || (look.Named != nil && !look.Named(stem)) {
			continue
		}
		f, err := inArchive(src, filepath.Join(src, e.Name()), look)
		if err != nil {
			return nil, err
		}
		found = append(found, f...)
	}
	return found, nil
}

// archiveStem is an archive's name without .tar.gz or .tgz, and whether it
// has either.
func archiveStem(name string) (string, bool) {
	for _, ext := range []string{".tar.gz", ".tgz"} {
		if stem, ok := strings.CutSuffix(name, ext); ok && stem != "" {
			return stem, true
		}
	}
	return "", false
}

func inArchive(src, archive string, look Look) ([]Found, error) {
	idx, err := readIndex(archive, look.Read)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable .tar.gz/.tgz archive: %w", archive, err)
	}
	var found []Found
	for _, d := range walk(idx, look) {
		found = append(found, Found{Src: src, Archive: archive, Dir: d.dir, What: d.what})
	}
	return found, nil
}

// place is where a walk looks: a directory on disk or an archive's index,
// by slash paths from its top (".").
type place interface {
	dirs(dir string) []string // the subdirectories' names, sorted
	read(file string) ([]byte, bool)
}

type match struct{ dir, what string }

// walk looks from the top of p down to look.Depth, level by level.
func walk(p place, look Look) []match {
	var found []match
	level := []string{"."}
	for depth := 0; depth <= look.Depth && len(level) > 0; depth++ {
		var next []string
		for _, d := range level {
			if what, ok := look.Is(func(f string) ([]byte, bool) { return p.read(path.Join(d, f)) }); ok {
				found = append(found, match{d, what})
				continue
			}
			if depth == look.Depth {
				continue
			}
			for _, sub := range p.dirs(d) {
				if !strings.HasPrefix(sub, ".") {
					next = append(next, path.Join(d, sub))
				}
			}
		}
		level = next
	}
	return found
}

// disk is a directory on this machine.
type disk string

func (d disk) dirs(dir string) []string {
	entries, err := os.ReadDir(filepath.Join(string(d), filepath.FromSlash(dir)))
	if err != nil {
		return nil // a directory that cannot be read holds nothing found
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

func (d disk) read(file string) ([]byte, bool) {
	data, err := os.ReadFile(filepath.Join(string(d), filepath.FromSlash(file)))
	return data, err == nil
}

// index is an archive's directories and files, read once: the content of
// the files a Look reads, no other.
type index struct {
	subdirs map[string][]string // directory: its subdirectories' names
	files   map[string][]byte
}

// maxRead bounds the content kept of one file read from an archive.
const maxRead = 1 << 20

func readIndex(archive string, read []string) (*index, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	idx := &index{subdirs: map[string][]string{}, files: map[string][]byte{}}
	seen := map[string]bool{".": true}
	addDir := func(dir string) {
		for dir != "." && !seen[dir] {
			seen[dir] = true
			parent := path.Dir(dir)
			idx.subdirs[parent] = append(idx.subdirs[parent], path.Base(dir))
			dir = parent
		}
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == "." || name == ".." || strings.HasPrefix(name, "../") || path.IsAbs(name) {
			continue // Extract refuses such an archive
		}
		switch h.Typeflag {
		case tar.TypeDir:
			addDir(name)
		case tar.TypeReg:
			addDir(path.Dir(name))
			var data []byte
			if slices.Contains(read, path.Base(name)) {
				if data, err = io.ReadAll(io.LimitReader(tr, maxRead)); err != nil {
					return nil, err
				}
			}
			idx.files[name] = data
		}
	}
	for _, names := range idx.subdirs {
		slices.Sort(names)
	}
	return idx, nil
}

func (x *index) dirs(dir string) []string { return x.subdirs[dir] }

func (x *index) read(file string) ([]byte, bool) {
	data, ok := x.files[path.Clean(file)]
	return data, ok
}
