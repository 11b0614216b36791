package env

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gitops-conformance/suite/pkg/sources"
)

// ComponentTree is a directory of a component release (a chart, a config
// directory), named in the catalog under dirKey, with its files at the root of
// the fixture repository. It comes from the release's Go module zip in both
// modes: a directory has no single online URL, and the module proxy is
// reachable whenever the internet is. The source goes into the report.
func ComponentTree(component, version, dirKey string) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		r := From(ctx)
		comp, rel, err := r.Catalog.File(component, dirKey)
		if err != nil {
			return nil, err
		}
		mod, err := sources.ModuleDir(ctx, comp.Module, version)
		if err != nil {
			return nil, err
		}
		files, err := ReadTree(filepath.Join(mod, rel))
		if err != nil {
			return nil, fmt.Errorf("read %s %s %s: %w", component, version, dirKey, err)
		}
		observe(ctx, "source: %s %s (%d files) from %s@%s/%s (Go module zip)", component, dirKey, len(files), comp.Module, version, rel)
		return files, nil
	})
}

// ReadTree reads every regular file under root, keyed by its slash path
// relative to root.
func ReadTree(root string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files under %s", root)
	}
	return files, nil
}
