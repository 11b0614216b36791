package appcell

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/appcell/appcelltest"
)

// tgz packs dir's files into archive, under prefix.
func tgz(t *testing.T, dir, archive string) {
	t.Helper()
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	err = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(dir), p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLocalChartFindsTheChartAsked(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	one := appcelltest.WriteChart(t, dir, "mychart", "mychart", "0.1.0", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
	// a chart's own subcharts are not charts to choose
	appcelltest.WriteChart(t, one, "charts/sub", "sub", "9.9.9", nil)

	c, err := LocalChart(one, "", "", "/", cache)
	if err != nil || c.Name != "mychart" || c.Version != "0.1.0" || c.Files["templates/cm.yaml"] == "" || len(c.Digest) != 64 {
		t.Fatalf("a chart directory: %+v, %v", c, err)
	}
	if c, err := LocalChart("mychart", "", "0.1.0", dir, cache); err != nil || c.Dir != one {
		t.Fatalf("a relative path is taken from the checkout: %+v, %v", c, err)
	}

	// a charts repository: versions/<name>/<version>, four levels down in an archive
	repo := filepath.Join(t.TempDir(), "charts-repo")
	appcelltest.WriteChart(t, repo, "versions/kruise/1.5.2", "kruise", "1.5.2", nil)
	appcelltest.WriteChart(t, repo, "versions/kruise/1.8.3", "kruise", "1.8.3", nil)
	appcelltest.WriteChart(t, repo, "versions/other/1.5.2", "other", "1.5.2", nil)
	archive := filepath.Join(t.TempDir(), "charts.tar.gz")
	tgz(t, repo, archive)
	c, err = LocalChart(archive, "kruise", "1.5.2", "/", cache)
	if err != nil || c.Name != "kruise" || c.Version != "1.5.2" || !strings.HasPrefix(c.Source, archive+" (archive charts.tar.gz, sha256 ") {
		t.Fatalf("an archive of a charts repository: %+v, %v", c, err)
	}
	// a directory of such archives
	if c, err := LocalChart(filepath.Dir(archive), "kruise", "1.8.3", "/", cache); err != nil || c.Version != "1.8.3" {
		t.Fatalf("a directory of archives: %+v, %v", c, err)
	}
	for _, tt := range []struct{ src, name, version, want string }{
		{archive, "kruise", "", "2 charts match kruise of any version (kruise 1.5.2, kruise 1.8.3, other 1.5.2): name one with CHART_NAME and CHART_VERSION"},
		{archive, "", "1.5.2", "2 charts match any chart of version 1.5.2"},
		{archive, "kruise", "2.0.0", "no chart kruise of version 2.0.0 in it (it holds: kruise 1.5.2, kruise 1.8.3, other 1.5.2)"},
		{filepath.Join(dir, "nope"), "", "", "no such file or directory"},
		{filepath.Join(one, "values.yaml"), "", "", "neither a directory nor a .tar.gz/.tgz archive"},
		{t.TempDir(), "", "", "not a chart: no Chart.yaml with a name and a version in it"},
	} {
		if _, err := LocalChart(tt.src, tt.name, tt.version, "/", cache); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LocalChart(%s, %q, %q): %v; want %q", tt.src, tt.name, tt.version, err, tt.want)
		}
	}
	notArchive := filepath.Join(t.TempDir(), "x.tgz")
	if err := os.WriteFile(notArchive, []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LocalChart(notArchive, "", "", "/", cache); err == nil || !strings.Contains(err.Error(), "not a readable .tar.gz/.tgz archive") {
		t.Errorf("a .tgz that is not an archive: %v", err)
	}
	if _, err := RepoChart("https://charts.example.com", "x", "", cache); err == nil || !strings.Contains(err.Error(), "needs CHART_VERSION") {
		t.Errorf("a repository without a version: %v", err)
	}
	if _, err := RepoChart("https://charts.example.com", "", "1.0.0", cache); err == nil || !strings.Contains(err.Error(), "needs CHART_NAME") {
		t.Errorf("a repository without a name: %v", err)
	}
}
