package releases

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Local answers whether the user's sources (the directories or archives the
// catalog's Sources name through an environment variable) hold an entry for
// a release, without extracting anything: a listing, not a build. The build
// itself reads them (pkg/fixture) and says what it found.
type Local struct {
	Repo   string // the suite's checkout: a relative path is taken from it
	Getenv func(string) string
}

// Tree finds the source tree for tag in s.Env: a directory named
// <tree>-<tag> or <tag>, or an archive of one (.tar.gz, .tgz); or the
// variable naming that tree or archive itself. It returns what it found, or
// an error saying what to provide.
func (l Local) Tree(s *catalog.Sources, tag string) (string, error) {
	root, err := l.root(s)
	if err != nil {
		return "", err
	}
	names := []string{s.Tree + "-" + tag, tag}
	var candidates []string
	for _, n := range names {
		candidates = append(candidates, n, n+".tar.gz", n+".tgz")
	}
	if base := filepath.Base(root); slices.Contains(candidates, base) {
		return fmt.Sprintf("%s=%s", s.Env, root), nil
	}
	for _, c := range candidates {
		if _, err := os.Stat(filepath.Join(root, c)); err == nil {
			return fmt.Sprintf("%s=%s (%s)", s.Env, root, c), nil
		}
	}
	return "", fmt.Errorf("no source tree for the tag in %s=%s (looked for %s-<tag>/, <tag>/ and their .tar.gz/.tgz archives)", s.Env, root, s.Tree)
}

// Chart finds the chart at rel (the catalog's files.chart, {version}
// filled) in s.Env: a directory holding it, or one directory down; an
// archive of such a tree; a directory of such archives; or a `helm package`
// archive <name>-<version>.tgz.
func (l Local) Chart(s *catalog.Sources, rel, name, version string) (string, error) {
	root, err := l.root(s)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(root)
	if err != nil {
		return "", fmt.Errorf("%s=%s: %w", s.Env, root, err)
	}
	var archives []string
	if st.IsDir() {
		if exists(filepath.Join(root, rel, "Chart.yaml")) {
			return fmt.Sprintf("%s=%s (%s)", s.Env, root, rel), nil
		}
		subdirs, _ := filepath.Glob(filepath.Join(root, "*", filepath.FromSlash(rel), "Chart.yaml"))
		if len(subdirs) > 0 {
			r, _ := filepath.Rel(root, filepath.Dir(subdirs[0]))
			return fmt.Sprintf("%s=%s (%s)", s.Env, root, r), nil
		}
		for _, pattern := range []string{"*.tar.gz", "*.tgz"} {
			m, _ := filepath.Glob(filepath.Join(root, pattern))
			archives = append(archives, m...)
		}
	} else {
		archives = []string{root}
	}
	for _, a := range archives {
		if filepath.Base(a) == name+"-"+version+".tgz" {
			return fmt.Sprintf("%s=%s (%s)", s.Env, root, filepath.Base(a)), nil
		}
		ok, err := holds(a, rel+"/Chart.yaml")
		if err != nil {
			return "", fmt.Errorf("%s=%s: read %s: %w", s.Env, root, filepath.Base(a), err)
		}
		if ok {
			return fmt.Sprintf("%s=%s (%s in %s)", s.Env, root, rel, filepath.Base(a)), nil
		}
	}
	return "", fmt.Errorf("no chart %s %s in %s=%s (looked for %s in it, one directory down and in its .tar.gz/.tgz archives)", name, version, s.Env, root, rel)
}

// root is the source the variable names, made absolute from the checkout.
func (l Local) root(s *catalog.Sources) (string, error) {
	root := l.Getenv(s.Env)
	if root == "" {
		return "", fmt.Errorf("%s is not set", s.Env)
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(l.Repo, root)
	}
	if _, err := os.Stat(root); err != nil {
		return "", fmt.Errorf("%s=%s: %w", s.Env, root, errors.Unwrap(err))
	}
	return root, nil
}

// holds reports whether a .tar.gz has a file whose path ends in suffix at
// its top or one directory down.
func holds(archive, suffix string) (bool, error) {
	f, err := os.Open(archive)
	if err != nil {
		return false, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return false, err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		name := strings.TrimPrefix(h.Name, "./")
		if name == suffix {
			return true, nil
		}
		if _, rest, ok := strings.Cut(name, "/"); ok && rest == suffix {
			return true, nil
		}
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
