package conform

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeChart writes a chart directory under dir/rel.
func writeChart(t *testing.T, dir, rel, name, version string, templates map[string]string) string {
	t.Helper()
	root := filepath.Join(dir, rel)
	files := map[string]string{"Chart.yaml": "apiVersion: v2\nname: " + name + "\nversion: " + version + "\n", "values.yaml": "replicas: 1\n"}
	for k, v := range templates {
		files["templates/"+k] = v
	}
	for p, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

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
	one := writeChart(t, dir, "mychart", "mychart", "0.1.0", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
	// a chart's own subcharts are not charts to choose
	writeChart(t, one, "charts/sub", "sub", "9.9.9", nil)

	c, err := LocalChart(one, "", "", "/", cache)
	if err != nil || c.Name != "mychart" || c.Version != "0.1.0" || c.Files["templates/cm.yaml"] == "" || len(c.Digest) != 64 {
		t.Fatalf("a chart directory: %+v, %v", c, err)
	}
	if c, err := LocalChart("mychart", "", "0.1.0", dir, cache); err != nil || c.Dir != one {
		t.Fatalf("a relative path is taken from the checkout: %+v, %v", c, err)
	}

	// a charts repository: versions/<name>/<version>, four levels down in an archive
	repo := filepath.Join(t.TempDir(), "charts-repo")
	writeChart(t, repo, "versions/kruise/1.5.2", "kruise", "1.5.2", nil)
	writeChart(t, repo, "versions/kruise/1.8.3", "kruise", "1.8.3", nil)
	writeChart(t, repo, "versions/other/1.5.2", "other", "1.5.2", nil)
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

func TestResolveRefusesBadInputBeforeAnythingStarts(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	writeChart(t, dir, "c", "c", "1.0.0", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {r: {{ .Values.replicas | quote }}}\n"})
	if err := os.WriteFile(filepath.Join(dir, "values.yaml"), []byte("replicas: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("- a list\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := Options{Chart: "c", Values: "values.yaml", NamespaceLabels: "a=b,team=x", Checks: "namespace-kept,crd-diff",
		Expect: "crd-diff=REPRODUCED", SyncOptions: "ServerSideApply=true"}.Resolve(ctx, Where{Repo: dir, CacheDir: cache, Kubernetes: "v1.33.13"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Release != "c" || s.Namespace != "c" || s.Labels["team"] != "x" || strings.Join(s.Checks, ",") != "crd-diff,namespace-kept" ||
		s.Expect["crd-diff"] != "REPRODUCED" || s.SyncOptions[0] != "ServerSideApply=true" || !strings.Contains(s.Values, "replicas: 3") {
		t.Fatalf("spec: %+v", s)
	}
	if cm := s.Rendered.Find("", "ConfigMap", "c", "c"); cm == nil || !strings.Contains(s.Rendered.Manifest(), `r: "3"`) {
		t.Fatalf("rendered with the values into the namespace:\n%s", s.Rendered.Manifest())
	}
	if !strings.HasPrefix(s.Command, "make conform CHART=c VALUES=values.yaml NAMESPACE_LABELS=a=b,team=x") {
		t.Errorf("command: %s", s.Command)
	}
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Chart: "c", Checks: "crd-diff,nope"}, `unknown check "nope" (valid: crd-diff, hook-stuck, self-blocking-webhook, leftover-webhook, namespace-kept, deletion-hooks)`},
		{Options{Chart: "c", Checks: "crd-diff", Expect: "hook-stuck=REPRODUCED"}, `"hook-stuck" is not a check of this run`},
		{Options{Chart: "c", Expect: "crd-diff=MITIGATED"}, "not check=REPRODUCED or check=NOT_REPRODUCED"},
		{Options{Chart: "https://charts.example.com", ChartName: "c", ChartVersion: "1.0.0"}, "a chart repository needs the online mode"},
		{Options{Chart: "c", ChartDigest: "abc"}, "not CHART_DIGEST abc"},
		{Options{Chart: "c", Namespace: "kube-system"}, `namespace "kube-system": the suite's cluster needs it`},
		{Options{Chart: "c", Namespace: "Not_A_Name"}, `namespace "Not_A_Name"`},
		{Options{Chart: "c", Release: "a.b"}, `release "a.b": not a Helm release name`},
		{Options{Chart: "c", NamespaceLabels: "x"}, `namespace label "x": not key=value`},
		{Options{Chart: "c", NamespaceLabels: "a=b c"}, `namespace label "a=b c"`},
		{Options{Chart: "c", Values: "nope.yaml"}, `values "nope.yaml": no such file or directory`},
		{Options{Chart: "c", Values: "bad.yaml"}, `values "bad.yaml": not a YAML map`},
		{Options{Chart: "c", Extra: "nope"}, `extra "nope": no such file or directory`},
		{Options{Chart: "c", Extra: "empty"}, `extra "empty": no manifests`},
		{Options{Chart: "c", Extra: "."}, `extra ".": decode manifest`},
		{Options{Chart: "c", ImageRecipes: "knative"}, `image recipe "knative": not component@version`},
		{Options{Chart: "c", ImageRecipes: "nope@v1.0.0"}, `the suite has no recipe images/nope/build.sh`},
	} {
		if _, err := tt.o.Resolve(ctx, Where{Repo: dir, CacheDir: cache, Kubernetes: "v1.33.13"}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v; want %q", tt.o, err, tt.want)
		}
	}
}
