package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/internal/gitserver"
)

func TestRepoRewritesEveryWayATeamWritesItsURL(t *testing.T) {
	r := NewRepo("https://github.com/example-team/gitops.git", "", "team-1-gitops")
	served := gitserver.URL("team-1-gitops")
	for _, in := range []string{
		"https://github.com/example-team/gitops.git",
		"https://github.com/example-team/gitops",
		"https://github.com/example-team/gitops/",
		"https://GitHub.com/example-team/gitops.git",
		"git@github.com:example-team/gitops.git",
		"ssh://git@github.com/example-team/gitops.git",
	} {
		if got := r.Rewrite(in); got != served {
			t.Errorf("Rewrite(%q) = %q, want %q", in, got, served)
		}
		if got := r.Rewrite(`{"repoURL":"` + in + `"}`); got != `{"repoURL":"`+served+`"}` {
			t.Errorf("Rewrite in JSON of %q = %q", in, got)
		}
	}
	for _, other := range []string{
		"https://github.com/example-team/gitops-other.git",
		"https://github.com/example-team/gitops/sub",
		"https://github.com/other-team/gitops.git",
		"https://gitlab.com/example-team/gitops.git",
		"https://github.com/Example-Team/gitops.git", // a path is case-sensitive
	} {
		if got := r.Rewrite(other); got != other {
			t.Errorf("Rewrite(%q) = %q, want it untouched", other, got)
		}
	}
}

func TestBundleServesBranchesTagsAndHistoryPointedAtTheServedCopy(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "team")
	if err := WriteTeamRepo(ctx, dir); err != nil {
		t.Fatal(err)
	}
	r := NewRepo(TeamURL, dir, "team-1-gitops")
	bundle, notes, err := r.Bundle(ctx, []Repo{r})
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 3 { // main, release and v1.0.0 hold children/ and apps/
		t.Errorf("notes = %q, want a rewrite of main, release and v1.0.0", notes)
	}
	// a repository no file names: git grep finds none (its exit 1), no rewrite
	other := NewRepo("https://example.com/other/gitops.git", "", "team-2-gitops")
	if _, notes, err := NewRepo(TeamURL, dir, "team-1-gitops").Bundle(ctx, []Repo{other}); err != nil || len(notes) != 0 {
		t.Errorf("served with a repository no file names: notes %q, %v; want none", notes, err)
	}
	clone := filepath.Join(t.TempDir(), "served.git")
	bfile := filepath.Join(t.TempDir(), "b")
	if err := writeFile(bfile, bundle); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		out, err := exec.Command("git", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return string(out)
	}
	run("clone", "-q", "--mirror", bfile, clone)
	refs := run("-C", clone, "for-each-ref", "--format=%(refname)")
	for _, want := range []string{"refs/heads/main", "refs/heads/release", "refs/tags/v1.0.0"} {
		if !strings.Contains(refs, want) {
			t.Errorf("served refs %q lack %s", refs, want)
		}
	}
	child := run("-C", clone, "show", "main:children/plain-manifests.yaml")
	if !strings.Contains(child, r.Served()) || strings.Contains(child, "github.com") {
		t.Errorf("main's child Application names %q, want the served copy:\n%s", TeamURL, child)
	}
	if n := strings.Count(run("-C", clone, "log", "--oneline", "main"), "\n"); n != 3 {
		t.Errorf("main has %d commits, want the team's two and the rewrite", n)
	}
	if got := run("-C", clone, "show", "v1.0.0:charts/web/values.yaml"); !strings.Contains(got, "message: hello\n") {
		t.Errorf("v1.0.0's values are not the first commit's: %s", got)
	}
}

func writeFile(p string, b []byte) error { return os.WriteFile(p, b, 0o644) }
