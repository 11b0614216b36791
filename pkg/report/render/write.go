package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gitops-conformance/suite/pkg/report"
)

// Write writes the report's four files into dir and points latest, next to
// dir, at it: what a run does.
func Write(r *report.Report, dir string) error {
	if err := WriteFiles(r, dir); err != nil {
		return err
	}
	latest := filepath.Join(filepath.Dir(dir), "latest")
	if err := os.Remove(latest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("replace %s: %w", latest, err)
	}
	return os.Symlink(filepath.Base(dir), latest)
}

// WriteFiles writes report.json (Report.Save) and its renderings into dir,
// leaving latest alone: a merged report is not the latest run.
func WriteFiles(r *report.Report, dir string) error {
	if err := r.Save(dir); err != nil {
		return err
	}
	return WriteRenderings(r, dir)
}

// WriteRenderings writes report.md, report.html and junit.xml into dir from
// r, and nothing else: re-rendering a run's report.json keeps its data as it
// was.
func WriteRenderings(r *report.Report, dir string) error {
	files := map[string][]byte{"report.md": []byte(Markdown(r)), "report.html": []byte(HTML(r)), "junit.xml": JUnit(r)}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			return fmt.Errorf("render report: %w", err)
		}
	}
	return nil
}
