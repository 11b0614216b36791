package sources

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gitops-conformance/suite/pkg/catalog"
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
// telling a tree from anything else, in a checkout and in an archive alike
// (Find reads an archive's list of files). Archives are extracted once into
// a cache directory, never into the checkout. Nothing of a tree is copied
// into the suite.
type Trees struct {
	Env     string // the environment variable naming where they are (KARGO_SOURCES)
	Project string // the project's name in a checkout's or archive's name (kargo)
	Marker  string // a file every tree holds (charts/kargo/Chart.yaml)
}

// TreesOf are the trees a catalog sources entry names (env, tree, marker).
func TreesOf(s *catalog.Sources) Trees {
	return Trees{Env: s.Env, Project: s.Tree, Marker: s.Marker}
}

// look is what Find looks for: a directory holding the marker, at the top
// or one directory down, in an entry named for the tag.
func (t Trees) look(tag string) Look {
	names := []string{t.Project + "-" + tag, tag}
	return Look{
		Is: func(read func(string) ([]byte, bool)) (string, bool) {
			_, ok := read(t.Marker)
			return t.Project + " " + tag, ok
		},
		Depth: 1,
		Named: func(name string) bool { return slices.Contains(names, name) },
	}
}

// Find finds the tree at tag without extracting anything (an archive is
// read, Tree extracts it). Without one it says, in a *Missing, what it
// looked at and what to provide: what a run checks before it starts.
func (t Trees) Find(repo, tag string) (Found, error) {
	want, provide := t.wanted(tag)
	root, err := envRoot(t.Env, repo, want, provide)
	if err != nil {
		return Found{}, err
	}
	found, err := Find(root, t.look(tag))
	if err != nil {
		return Found{}, &Missing{Why: fmt.Sprintf("offline, %s comes from %s=%s: %v; %s", want, t.Env, root, err, provide)}
	}
	if len(found) == 0 {
		return Found{}, t.notIn(root, tag)
	}
	return found[0], nil
}

// Tree is the tree at tag on this machine: the checkout Find found, or its
// archive extracted under cache (once). src says where it came from, for the
// report.
func (t Trees) Tree(repo, cache, tag string) (dir, src string, err error) {
	f, err := t.Find(repo, tag)
	if err != nil {
		return "", "", err
	}
	dir, how, err := f.Open(cache)
	if err != nil {
		return "", "", fmt.Errorf("%s=%s: %w", t.Env, f.Src, err)
	}
	return dir, fmt.Sprintf("%s=%s (%s)", t.Env, f.Src, how), nil
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

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
