package sources

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Missing is an input the user has to provide (a source tree, a chart)
// and did not: what it is, where the suite looked and what to provide.
type Missing struct{ Why string }

func (e *Missing) Error() string { return e.Why }

// EnvPath is where the environment variable env points, a relative path
// made absolute from repo (the suite's checkout); "" when it is not set.
func EnvPath(env, repo string) string {
	root := os.Getenv(env)
	if root != "" && !filepath.IsAbs(root) {
		root = filepath.Join(repo, root)
	}
	return root
}

// envRoot is EnvPath, or a *Missing worded with want and provide when the
// variable is not set or names nothing.
func envRoot(env, repo, want, provide string) (string, error) {
	root := EnvPath(env, repo)
	if root == "" {
		return "", &Missing{Why: fmt.Sprintf("offline, %s comes from %s, which is not set: %s", want, env, provide)}
	}
	if _, err := os.Stat(root); err != nil {
		return "", &Missing{Why: fmt.Sprintf("offline, %s comes from %s=%s: %v; %s", want, env, root, err, provide)}
	}
	return root, nil
}

// Trees are a project's source trees at its release tags, from where an
// environment variable points: a directory holding, per tag, a checkout
// named <project>-<tag> or <tag>, or an archive of one named
// <project>-<tag>.tar.gz (.tgz) or <tag>.tar.gz, with the tree at its top or
// one directory down (as `git archive --prefix` and GitHub's archives lay it
// out); or that checkout or archive itself. A relative path is taken from
// the suite's checkout. Marker is a file every tree holds (slash path),
// telling a tree from anything else. Archives are extracted once into a
// cache directory, never into the checkout. Nothing of a tree is copied into
// the suite.
type Trees struct {
	Env     string // the environment variable naming where they are (KARGO_SOURCES)
	Project string // the project's name in a checkout's or archive's name (kargo)
	Marker  string // a file every tree holds (charts/kargo/Chart.yaml)
}

// Candidate is where a tree was found, before anything is extracted.
type Candidate struct {
	Root     string   // the variable's value, made absolute
	Dir      string   // a checkout holding the marker, or ""
	Archives []string // else the archives named for the tag
}

// Find looks for the tree at tag without extracting anything: a checkout
// holding the marker, or archives named for the tag (whose content Tree
// checks). Without one it says, in a *Missing, what it looked at and what to
// provide: what a run checks before it starts.
func (t Trees) Find(repo, tag string) (Candidate, error) {
	want, provide := t.wanted(tag)
	root := os.Getenv(t.Env)
	if root == "" {
		return Candidate{}, &Missing{Why: fmt.Sprintf("offline, %s comes from %s, which is not set: %s", want, t.Env, provide)}
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(repo, root)
	}
	st, err := os.Stat(root)
	if err != nil {
		return Candidate{}, &Missing{Why: fmt.Sprintf("offline, %s comes from %s=%s: %v; %s", want, t.Env, root, err, provide)}
	}
	names := []string{t.Project + "-" + tag, tag}
	c := Candidate{Root: root}
	if st.IsDir() {
		for _, n := range names {
			if d := findTree(filepath.Join(root, n), t.Marker); d != "" {
				c.Dir = d
				return c, nil
			}
		}
		if base := filepath.Base(root); base == names[0] || base == names[1] {
			if d := findTree(root, t.Marker); d != "" {
				c.Dir = d
				return c, nil
			}
		}
		for _, n := range names {
			for _, ext := range []string{".tar.gz", ".tgz"} {
				if a := filepath.Join(root, n+ext); fileExists(a) {
					c.Archives = append(c.Archives, a)
				}
			}
		}
	} else if base := filepath.Base(root); strings.HasPrefix(base, names[0]+".") || strings.HasPrefix(base, names[1]+".") {
		c.Archives = []string{root}
	}
	if len(c.Archives) == 0 {
		return Candidate{}, t.notIn(root, tag)
	}
	return c, nil
}

// Tree is the tree at tag on this machine: the checkout Find found, or its
// archive extracted under cache (once). src says where it came from, for the
// report.
func (t Trees) Tree(repo, cache, tag string) (dir, src string, err error) {
	c, err := t.Find(repo, tag)
	if err != nil {
		return "", "", err
	}
	if c.Dir != "" {
		return c.Dir, fmt.Sprintf("%s=%s (directory %s)", t.Env, c.Root, c.Dir), nil
	}
	for _, a := range c.Archives {
		out, sum, err := Extract(a, cache)
		if err != nil {
			return "", "", fmt.Errorf("%s=%s: %w", t.Env, c.Root, err)
		}
		if d := findTree(out, t.Marker); d != "" {
			return d, fmt.Sprintf("%s=%s (archive %s, sha256 %s, extracted to %s)", t.Env, c.Root, filepath.Base(a), sum, d), nil
		}
	}
	return "", "", t.notIn(c.Root, tag)
}

func (t Trees) wanted(tag string) (want, provide string) {
	want = fmt.Sprintf("%s's source tree at %s", t.Project, tag)
	provide = fmt.Sprintf("set %s to a directory holding %[2]s-%[3]s/ (a checkout of %[2]s at %[3]s) or %[2]s-%[3]s.tar.gz (an archive of that tree)",
		t.Env, t.Project, tag)
	return want, provide
}

func (t Trees) notIn(root, tag string) error {
	want, provide := t.wanted(tag)
	return &Missing{Why: fmt.Sprintf("offline, %s is not in %s=%s (looked for %s-%s/, %s/ and their .tar.gz/.tgz archives holding %s): %s",
		want, t.Env, root, t.Project, tag, tag, t.Marker, provide)}
}

// findTree is dir when it holds marker, else its one subdirectory that does.
func findTree(dir, marker string) string {
	if fileExists(filepath.Join(dir, filepath.FromSlash(marker))) {
		return dir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if d := filepath.Join(dir, e.Name()); e.IsDir() && fileExists(filepath.Join(d, filepath.FromSlash(marker))) {
			return d
		}
	}
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
