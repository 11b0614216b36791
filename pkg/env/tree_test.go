package env

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadTree(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{"Chart.yaml": "name: x\n", "templates/hooks/job.yaml": "kind: Job\n"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := ReadTree(root)
	if err != nil || len(files) != 2 || files["templates/hooks/job.yaml"] != "kind: Job\n" {
		t.Fatalf("ReadTree = %v, %v", files, err)
	}
	if _, err := ReadTree(t.TempDir()); err == nil {
		t.Fatal("an empty tree must be an error")
	}
}
