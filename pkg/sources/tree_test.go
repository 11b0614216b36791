package sources

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/sources/sourcestest"
)

const demoMarker = "charts/demo/Chart.yaml"

func TestTrees(t *testing.T) {
	const env = "DEMO_SOURCES"
	trees := Trees{Env: env, Project: "demo", Marker: demoMarker}
	archives := t.TempDir()
	sourcestest.Archive(t, filepath.Join(archives, "demo-v1.0.0.tar.gz"), "", map[string]string{"demo-v1.0.0/" + demoMarker: "x", "demo-v1.0.0/go.mod": "module demo\n"})
	checkouts := t.TempDir()
	if err := os.MkdirAll(filepath.Join(checkouts, "v1.0.0", "charts", "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkouts, "v1.0.0", demoMarker), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := t.TempDir()
	if err := os.Symlink(archives, filepath.Join(repo, "relative")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, source, want string }{
		{"directory of archives", archives, "archive demo-v1.0.0.tar.gz"},
		{"the archive itself", filepath.Join(archives, "demo-v1.0.0.tar.gz"), "archive demo-v1.0.0.tar.gz"},
		{"directory of checkouts", checkouts, "(directory " + filepath.Join(checkouts, "v1.0.0") + ")"},
		{"a path relative to the checkout", "relative", "archive demo-v1.0.0.tar.gz"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(env, tt.source)
			if _, err := trees.Find(repo, "v1.0.0"); err != nil {
				t.Fatal(err)
			}
			cache := t.TempDir()
			dir, src, err := trees.Tree(repo, cache, "v1.0.0")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(src, tt.want) {
				t.Errorf("source %q does not say %q", src, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, demoMarker)); err != nil {
				t.Fatalf("tree %s lacks the marker: %v", dir, err)
			}
			if strings.Contains(tt.want, "archive") && !strings.HasPrefix(dir, cache) {
				t.Errorf("an archive is extracted into the cache, got %s", dir)
			}
		})
	}
	for _, tt := range []struct{ name, source, tag, want string }{
		{"unset", "", "v1.0.0", env + ", which is not set"},
		{"no such path", filepath.Join(archives, "nope"), "v1.0.0", filepath.Join(archives, "nope")},
		{"another tag", archives, "v2.0.0", "demo-v2.0.0.tar.gz"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(env, tt.source)
			_, err := trees.Find(repo, tt.tag)
			var missing *Missing
			if !errors.As(err, &missing) || !strings.Contains(missing.Why, tt.want) || !strings.Contains(missing.Why, "demo-"+tt.tag+"/") {
				t.Fatalf("want Missing naming %q and the layout, got %v", tt.want, err)
			}
			if strings.Contains(missing.Why, "\n") {
				t.Errorf("one line, got %q", missing.Why)
			}
		})
	}
	t.Run("an archive without the marker", func(t *testing.T) {
		dir := t.TempDir()
		sourcestest.Archive(t, filepath.Join(dir, "demo-v1.0.0.tar.gz"), "", map[string]string{"demo-v1.0.0/go.mod": "module demo\n"})
		t.Setenv(env, dir)
		var missing *Missing
		if _, _, err := trees.Tree(repo, t.TempDir(), "v1.0.0"); !errors.As(err, &missing) || !strings.Contains(missing.Why, demoMarker) {
			t.Fatalf("want Missing naming the marker, got %v", err)
		}
	})
}

func TestTreeCommit(t *testing.T) {
	const env, commit = "DEMO_SOURCES", "8eec6330394d396a949d92a109c9dfccc1e0d2e2"
	trees := Trees{Env: env, Project: "demo", Marker: demoMarker}
	for _, tt := range []struct {
		name, commit string
		files        map[string]string
		want         string
	}{
		{"git archive --prefix", commit, map[string]string{"demo-v1.0.0/" + demoMarker: "x"}, commit},
		{"git archive, no prefix", commit, map[string]string{demoMarker: "x"}, commit},
		{"a tar made without git", "", map[string]string{"demo-v1.0.0/" + demoMarker: "x"}, ""},
		{"a comment that is no commit", "made by hand", map[string]string{"demo-v1.0.0/" + demoMarker: "x"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			sourcestest.Archive(t, filepath.Join(dir, "demo-v1.0.0.tar.gz"), tt.commit, tt.files)
			t.Setenv(env, dir)
			tree, _, err := trees.Tree(t.TempDir(), t.TempDir(), "v1.0.0")
			if err != nil {
				t.Fatal(err)
			}
			got, how, err := TreeCommit(context.Background(), tree)
			if err != nil || got != tt.want || (got != "" && how == "") {
				t.Fatalf("TreeCommit = %q (%q), %v; want %q", got, how, err, tt.want)
			}
		})
	}
	t.Run("an extraction made before commits were recorded", func(t *testing.T) {
		dir := t.TempDir()
		archive := filepath.Join(dir, "demo-v1.0.0.tar.gz")
		sourcestest.Archive(t, archive, commit, map[string]string{"demo-v1.0.0/" + demoMarker: "x"})
		cache := t.TempDir()
		out, _, err := Extract(archive, cache)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(out, commitFile)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Extract(archive, cache); err != nil {
			t.Fatal(err)
		}
		if got, _, err := TreeCommit(context.Background(), filepath.Join(out, "demo-v1.0.0")); err != nil || got != commit {
			t.Fatalf("TreeCommit = %q, %v; want %q", got, err, commit)
		}
	})
	t.Run("a directory that is no checkout and no extraction", func(t *testing.T) {
		if got, _, err := TreeCommit(context.Background(), t.TempDir()); err != nil || got != "" {
			t.Fatalf("TreeCommit = %q, %v; want nothing", got, err)
		}
	})
}

func TestExtractStaysInside(t *testing.T) {
	dir := t.TempDir()
	sourcestest.Archive(t, filepath.Join(dir, "bad.tgz"), "", map[string]string{"../escape": "x"})
	if _, _, err := Extract(filepath.Join(dir, "bad.tgz"), filepath.Join(dir, "out")); err == nil {
		t.Fatal("an entry outside the destination must be refused")
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Fatal("written outside the destination")
	}
}
