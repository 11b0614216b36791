package env

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/images"
)

func tgz(t *testing.T, path string, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(content))
	}
	_ = tw.Close()
	_ = gz.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func chartRun(t *testing.T, mode images.Mode) context.Context {
	t.Helper()
	cat, err := catalog.Parse([]byte("kind: v0.27.0\nkubernetes: {version: v1.33.13}\nargocd: {default: [v2.14.11], smoke: v2.14.11, modules: {v2: m}}\n" +
		"components:\n  demo:\n    versions: [v1.0.0]\n    files: {chart: \"versions/demo/{version}\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := WithRun(context.Background(), &Run{Repo: t.TempDir(), CacheDir: t.TempDir(), Catalog: cat, Mode: mode})
	ctx, _ = WithCell(ctx, t.TempDir())
	return ctx
}

const demoChart = "apiVersion: v2\nname: demo\nversion: 1.0.0\n"

func TestUserChartSources(t *testing.T) {
	tree := map[string]string{
		"charts/versions/demo/1.0.0/Chart.yaml":                demoChart,
		"charts/versions/demo/1.0.0/templates/deployment.yaml": "imagePullPolicy: Always\n",
	}
	dir := t.TempDir()
	for name, content := range tree {
		p := filepath.Join(dir, "checkout", filepath.FromSlash(name))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, []byte(content), 0o644)
	}
	_ = os.MkdirAll(filepath.Join(dir, "archives"), 0o755)
	tgz(t, filepath.Join(dir, "archives", "charts.tar.gz"), tree)
	tgz(t, filepath.Join(dir, "demo-1.0.0.tgz"), map[string]string{"demo/Chart.yaml": demoChart, "demo/values.yaml": "{}\n"})

	for name, source := range map[string]string{
		"checkout, one level down": filepath.Join(dir, "checkout"),
		"checkout root":            filepath.Join(dir, "checkout", "charts"),
		"archive":                  filepath.Join(dir, "archives", "charts.tar.gz"),
		"directory of archives":    filepath.Join(dir, "archives"),
		"helm package":             filepath.Join(dir, "demo-1.0.0.tgz"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("DEMO_CHARTS", source)
			ctx := chartRun(t, images.Offline)
			f, err := OfflinePullPolicy(UserChart("DEMO_CHARTS", "demo", "demo", "1.0.0"))(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if f["Chart.yaml"] != demoChart {
				t.Fatalf("files: %v", f)
			}
			if d, ok := f["templates/deployment.yaml"]; ok && d != "imagePullPolicy: IfNotPresent\n" {
				t.Fatalf("offline pull policy: %q", d)
			}
			if strings.HasPrefix(From(ctx).CacheDir, source) {
				t.Fatal("archives are extracted into the cache")
			}
		})
	}
}

func TestUserChartMissing(t *testing.T) {
	dir := t.TempDir()
	for name, source := range map[string]string{"unset": "", "no such path": filepath.Join(dir, "nope"), "no such version": dir} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("DEMO_CHARTS", source)
			_, err := UserChart("DEMO_CHARTS", "demo", "demo", "1.0.0")(chartRun(t, images.Offline))
			var missing *SourceMissing
			if !errors.As(err, &missing) || !strings.Contains(missing.Why, "DEMO_CHARTS") || !strings.Contains(missing.Why, "versions/demo/1.0.0") {
				t.Fatalf("want SourceMissing naming the variable and the path: %v", err)
			}
		})
	}
}

func TestExtractStaysInside(t *testing.T) {
	dir := t.TempDir()
	tgz(t, filepath.Join(dir, "bad.tgz"), map[string]string{"../escape": "x"})
	if _, _, err := extract(filepath.Join(dir, "bad.tgz"), filepath.Join(dir, "out")); err == nil {
		t.Fatal("an entry outside the destination must be refused")
	}
	if _, err := os.Stat(filepath.Join(dir, "escape")); err == nil {
		t.Fatal("written outside the destination")
	}
}

func TestOfflinePullPolicyOnline(t *testing.T) {
	src := Files(func(context.Context) (map[string]string, error) {
		return map[string]string{"templates/a.yaml": "imagePullPolicy: Always\n"}, nil
	})
	f, err := OfflinePullPolicy(src)(chartRun(t, images.Online))
	if err != nil || f["templates/a.yaml"] != "imagePullPolicy: Always\n" {
		t.Fatalf("online the chart stays as it is: %v %v", f, err)
	}
}
