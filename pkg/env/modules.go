package env

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/gitops-conformance/suite/pkg/sources"
)

// ModuleReader reads a file or a directory of a Go module at an exact
// version, keyed by slash path relative to the module's root.
type ModuleReader func(module, version, rel string) (map[string]string, error)

// FromModules is a fixture rendered by render from files of Go modules (the
// module proxy's zips: a release's sources, offline and online alike). Each
// module read goes into the report as a source; the result is memoized.
func FromModules(what string, render func(read ModuleReader) (map[string]string, error)) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		read := ReadModules(ctx)
		return render(func(module, version, rel string) (map[string]string, error) {
			files, err := read(module, version, rel)
			if err == nil {
				observe(ctx, "source: %s: %s@%s/%s (%d file(s), Go module zip)", what, module, version, rel, len(files))
			}
			return files, err
		})
	})
}

// ReadModules is the ModuleReader the suite uses: each module is downloaded
// at its exact version through the module proxy (sources.ModuleDir), so it
// works on an empty module cache.
func ReadModules(ctx context.Context) ModuleReader {
	return func(module, version, rel string) (map[string]string, error) {
		dir, err := sources.ModuleDir(ctx, module, version)
		if err != nil {
			return nil, err
		}
		files, err := readModulePath(dir, rel)
		if err != nil {
			return nil, fmt.Errorf("read %s@%s/%s: %w", module, version, rel, err)
		}
		return files, nil
	}
}

func readModulePath(dir, rel string) (map[string]string, error) {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		data, err := os.ReadFile(p)
		return map[string]string{rel: string(data)}, err
	}
	tree, err := ReadTree(p)
	if err != nil {
		return nil, err
	}
	files := make(map[string]string, len(tree))
	for k, v := range tree {
		files[path.Join(rel, k)] = v
	}
	return files, nil
}
