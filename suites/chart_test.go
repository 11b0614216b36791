package suites

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/sources/sourcestest"
)

// Write makes a chart directory of its own from a path (a chart directory
// of the checkout) and from a component's source tree (an archive where
// the catalog's variable points), and refuses content of another digest.
func TestChartWrite(t *testing.T) {
	at := Local{Repo: "..", Cache: t.TempDir()}
	out := t.TempDir()
	ch, err := Chart{Path: "fixtures/charts/conform-clean"}.Write(context.Background(), at, filepath.Join(out, "clean"))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Name != "conform-clean" || ch.Dir != filepath.Join(out, "clean") || !strings.HasPrefix(ch.Source, "fixtures/charts/conform-clean (") {
		t.Errorf("written: %s %s in %s from %s", ch.Name, ch.Version, ch.Dir, ch.Source)
	}
	if _, err := os.Stat(filepath.Join(out, "clean", "Chart.yaml")); err != nil {
		t.Error(err)
	}

	trees := t.TempDir()
	sourcestest.Archive(t, filepath.Join(trees, "kargo-v1.11.2.tar.gz"), "", map[string]string{
		"kargo-v1.11.2/go.mod":                            "module github.com/akuity/kargo\n",
		"kargo-v1.11.2/charts/kargo/Chart.yaml":           "apiVersion: v2\nname: kargo\nversion: 0.1.0\n",
		"kargo-v1.11.2/charts/kargo/templates/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"kargo-v1.11.2/charts/other/Chart.yaml":           "apiVersion: v2\nname: other\nversion: 0.1.0\n",
		"kargo-v1.11.2/api/go.mod":                        "module github.com/akuity/kargo/api\n",
		"kargo-v1.11.2/charts/kargo/resources/crds/a.yml": "{}\n",
	})
	t.Setenv("KARGO_SOURCES", trees)
	ch, err = Chart{Tree: "kargo@v1.11.2", Dir: "charts/kargo"}.Write(context.Background(), at, filepath.Join(out, "kargo"))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Name != "kargo" || len(ch.Files) != 3 {
		t.Errorf("written: %s with %d files (%v)", ch.Name, len(ch.Files), ch.Files)
	}
	if _, err := (Chart{Tree: "kargo@v1.6.0", Dir: "charts/kargo"}).Write(context.Background(), at, filepath.Join(out, "old")); err == nil ||
		!strings.Contains(err.Error(), "KARGO_SOURCES") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a tag not provided: %v", err)
	}
	if _, err := (Chart{Path: "fixtures/charts/conform-clean", Digest: "0000"}).Write(context.Background(), at, filepath.Join(out, "x")); err == nil ||
		!strings.Contains(err.Error(), "not 0000") {
		t.Errorf("another digest: %v", err)
	}
}
