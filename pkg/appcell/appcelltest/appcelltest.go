package appcelltest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteChart writes a chart directory under dir/rel: Chart.yaml (name,
// version), values.yaml (replicas: 1) and templates, by file name; it
// returns the chart's directory.
func WriteChart(t *testing.T, dir, rel, name, version string, templates map[string]string) string {
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
