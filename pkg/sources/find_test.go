package sources

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/sources/sourcestest"
)

// writeFiles writes files (slash paths) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func chartYAML(name, version string) string {
	return "apiVersion: v2\nname: " + name + "\nversion: " + version + "\n"
}

// whats is what each chart found is, where: "kruise 1.5.2 @ <where>".
func whats(charts []Chart) []string {
	var out []string
	for _, c := range charts {
		out = append(out, c.Name+" "+c.Version+" @ "+c.String())
	}
	return out
}

func TestFindCharts(t *testing.T) {
	repo := map[string]string{
		"charts/versions/kruise/1.5.2/Chart.yaml": chartYAML("kruise", "1.5.2"),
		"charts/versions/kruise/1.8.3/Chart.yaml": chartYAML("kruise", "1.8.3"),
		// a chart's own subcharts are not charts found
		"charts/versions/kruise/1.8.3/charts/sub/Chart.yaml": chartYAML("sub", "0.1.0"),
		// nor is anything in a hidden directory, nor a Chart.yaml without a version
		"charts/.git/x/Chart.yaml":  chartYAML("hidden", "1.0.0"),
		"charts/broken/Chart.yaml":  "name: broken\n",
		"charts/deep/a/b/c/d/e/f/g": "",
	}
	t.Run("a chart's directory", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"Chart.yaml": chartYAML("one", "0.1.0"), "charts/sub/Chart.yaml": chartYAML("sub", "9.9.9")})
		got, err := Charts(dir, 5)
		if err != nil || len(got) != 1 || got[0].Name != "one" || got[0].Dir != dir || got[0].Archive != "" {
			t.Fatalf("Charts = %v, %v", whats(got), err)
		}
	})
	t.Run("nested directories, nearest the top first", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, repo)
		writeFiles(t, dir, map[string]string{"kruise/Chart.yaml": chartYAML("kruise", "1.5.2")}) // a `helm package` layout
		got, err := Charts(dir, 4)
		want := []string{
			"kruise 1.5.2 @ directory " + filepath.Join(dir, "kruise"),
			"kruise 1.5.2 @ directory " + filepath.Join(dir, "charts/versions/kruise/1.5.2"),
			"kruise 1.8.3 @ directory " + filepath.Join(dir, "charts/versions/kruise/1.8.3"),
		}
		if err != nil || strings.Join(whats(got), "\n") != strings.Join(want, "\n") {
			t.Fatalf("Charts = %q, %v; want %q", whats(got), err, want)
		}
		if got, _ := Charts(dir, 3); len(got) != 1 {
			t.Errorf("depth 3: %q, want the one 1 directory down only (versions/kruise/<v> is 4 down)", whats(got))
		}
	})
	archives := t.TempDir()
	tree := map[string]string{}
	for name, content := range repo {
		tree["openkruise-"+name] = content
	}
	sourcestest.Archive(t, filepath.Join(archives, "charts.tar.gz"), "", tree)
	sourcestest.Archive(t, filepath.Join(archives, "kruise-1.8.0.tgz"), "", map[string]string{"kruise/Chart.yaml": chartYAML("kruise", "1.8.0"), "kruise/values.yaml": "x: 1\n"})
	if err := os.WriteFile(filepath.Join(archives, "notes.txt"), []byte("not an archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("a .tar.gz, read without extracting it", func(t *testing.T) {
		a := filepath.Join(archives, "charts.tar.gz")
		got, err := Charts(a, 5)
		want := []string{"kruise 1.5.2 @ archive charts.tar.gz, at openkruise-charts/versions/kruise/1.5.2", "kruise 1.8.3 @ archive charts.tar.gz, at openkruise-charts/versions/kruise/1.8.3"}
		if err != nil || strings.Join(whats(got), "\n") != strings.Join(want, "\n") {
			t.Fatalf("Charts = %q, %v; want %q", whats(got), err, want)
		}
		cache := t.TempDir()
		dir, how, err := got[0].Open(cache)
		if err != nil || !strings.HasPrefix(dir, cache) || !strings.Contains(how, "archive charts.tar.gz, sha256 ") {
			t.Fatalf("Open = %s, %q, %v", dir, how, err)
		}
		if data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml")); err != nil || !strings.Contains(string(data), "1.5.2") {
			t.Fatalf("the extracted chart: %q, %v", data, err)
		}
	})
	t.Run("a directory of archives, each of them (a .tgz from helm package too)", func(t *testing.T) {
		got, err := Charts(archives, 5)
		if err != nil || len(got) != 3 || got[2].String() != "archive kruise-1.8.0.tgz, at kruise" || got[2].Src != archives {
			t.Fatalf("Charts = %q, %v", whats(got), err)
		}
	})
	t.Run("a directory's archives only when it holds none itself", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"own/Chart.yaml": chartYAML("own", "1.0.0")})
		sourcestest.Archive(t, filepath.Join(dir, "other.tgz"), "", map[string]string{"other/Chart.yaml": chartYAML("other", "1.0.0")})
		if got, err := Charts(dir, 5); err != nil || len(got) != 1 || got[0].Name != "own" {
			t.Fatalf("Charts = %q, %v", whats(got), err)
		}
	})
	t.Run("none found", func(t *testing.T) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"README.md": "no chart"})
		if got, err := Charts(dir, 5); err != nil || len(got) != 0 {
			t.Fatalf("Charts = %q, %v; want none, no error", whats(got), err)
		}
	})
	t.Run("neither a directory nor an archive", func(t *testing.T) {
		if _, err := Charts(filepath.Join(archives, "notes.txt"), 5); err == nil || err.Error() != "neither a directory nor a .tar.gz/.tgz archive" {
			t.Fatalf("err = %v", err)
		}
		bad := filepath.Join(t.TempDir(), "bad.tgz")
		if err := os.WriteFile(bad, []byte("not gzip"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Charts(bad, 5); err == nil || !strings.Contains(err.Error(), "not a readable .tar.gz/.tgz archive") {
			t.Fatalf("err = %v", err)
		}
		if _, err := Charts(filepath.Join(archives, "nope"), 5); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v", err)
		}
	})
}

// Named: only the entries named for the tag are looked in, and the source
// itself when it is named so; Depth 1 finds a tree under an archive's prefix.
func TestFindNamed(t *testing.T) {
	trees := Trees{Env: "DEMO_SOURCES", Project: "demo", Marker: demoMarker}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"demo-v1.0.0/" + demoMarker:       "x",
		"v1.1.0/demo/" + demoMarker:       "x", // one directory down
		"demo-v1.2.0/README.md":           "no marker",
		"unnamed/" + demoMarker:           "x",
		"demo-v1.3.0/a/b/" + demoMarker:   "x", // too deep
		"demo-v1.0.0/sub/" + demoMarker:   "x", // below a tree found
		"elsewhere/demo-v1.4.0/go.mod":    "",
		"demo-v1.4.0.tar.gz.partial/x.go": "",
	})
	sourcestest.Archive(t, filepath.Join(dir, "demo-v1.2.0.tgz"), "", map[string]string{"demo-v1.2.0/" + demoMarker: "x"})
	sourcestest.Archive(t, filepath.Join(dir, "demo-v1.4.0.tar.gz"), "", map[string]string{"demo-v1.4.0/go.mod": ""})
	for tag, want := range map[string]string{
		"v1.0.0": "directory " + filepath.Join(dir, "demo-v1.0.0"),
		"v1.1.0": "directory " + filepath.Join(dir, "v1.1.0", "demo"),
		"v1.2.0": "archive demo-v1.2.0.tgz, at demo-v1.2.0", // the directory lacks the marker: its archive
		"v1.3.0": "",
		"v1.4.0": "", // an archive named for the tag without the marker
		"v9.9.9": "",
	} {
		got, err := Find(dir, trees.look(tag))
		if err != nil {
			t.Fatalf("%s: %v", tag, err)
		}
		if want == "" {
			if len(got) != 0 {
				t.Errorf("%s: found %v, want none", tag, got)
			}
			continue
		}
		if len(got) != 1 || got[0].String() != want {
			t.Errorf("%s: found %v, want %s", tag, got, want)
		}
	}
	if got, err := Find(filepath.Join(dir, "demo-v1.0.0"), trees.look("v1.0.0")); err != nil || len(got) != 1 {
		t.Errorf("the tree itself: %v, %v", got, err)
	}
	if got, err := Find(filepath.Join(dir, "unnamed"), trees.look("v1.0.0")); err != nil || len(got) != 0 {
		t.Errorf("a tree not named for the tag: %v, %v; want none", got, err)
	}
	if got, err := Find(filepath.Join(dir, "demo-v1.2.0.tgz"), trees.look("v1.0.0")); err != nil || len(got) != 0 {
		t.Errorf("another tag's archive itself: %v, %v; want none", got, err)
	}
}

// UserCharts: the chart of the name and version asked for, the first found;
// a *Missing saying what to provide when there is none.
func TestUserCharts(t *testing.T) {
	const env = "DEMO_CHARTS"
	charts := UserCharts{Env: env, Path: "versions/kruise/1.5.2"}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"checkout/versions/kruise/1.5.2/Chart.yaml": chartYAML("kruise", "1.5.2"),
		"checkout/versions/kruise/1.8.3/Chart.yaml": chartYAML("kruise", "1.8.3"),
		"checkout/versions/other/1.5.2/Chart.yaml":  chartYAML("other", "1.5.2"),
	})
	repo := t.TempDir()
	t.Setenv(env, dir)
	f, err := charts.Find(repo, "kruise", "1.5.2")
	if err != nil || f.Dir != filepath.Join(dir, "checkout/versions/kruise/1.5.2") || f.From(env) != env+"="+dir+" (directory "+f.Dir+")" {
		t.Fatalf("one directory down: %+v, %v", f, err)
	}
	for _, tt := range []struct{ name, source, version, want string }{
		{"unset", "", "1.5.2", "offline, chart kruise 1.5.2 comes from DEMO_CHARTS, which is not set: set DEMO_CHARTS to a directory holding versions/kruise/1.5.2"},
		{"not there", filepath.Join(dir, "nope"), "1.5.2", "no such file or directory"},
		{"another version", dir, "2.0.0", "offline, chart kruise 2.0.0 is not in DEMO_CHARTS=" + dir + " (looked for it at versions/kruise/1.5.2"},
		{"not an archive", filepath.Join(dir, "checkout/versions/kruise/1.5.2/Chart.yaml"), "1.5.2", "neither a directory nor a .tar.gz/.tgz archive"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(env, tt.source)
			_, err := charts.Find(repo, "kruise", tt.version)
			var missing *Missing
			if !errors.As(err, &missing) || !strings.Contains(missing.Why, tt.want) || strings.Contains(missing.Why, "\n") {
				t.Fatalf("want one line of Missing saying %q, got %v", tt.want, err)
			}
		})
	}
}
