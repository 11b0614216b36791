package conform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Chart is the chart under check, found and read before anything starts.
type Chart struct {
	Name, Version string
	Dir           string // its directory on this machine
	Source        string // where it came from, for the report
	Files         map[string]string
	Digest        string // fixture.Digest of Files
}

// IsRepoURL reports whether a CHART names a chart repository (https://,
// http://, oci://) rather than a path.
func IsRepoURL(s string) bool {
	for _, p := range []string{"https://", "http://", "oci://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// searchDepth bounds how far below a directory (or an archive's root) a
// chart is looked for: versions/kruise/1.5.2 in a charts repository's
// archive is four levels down.
const searchDepth = 5

// LocalChart finds a chart on this machine: src is a chart directory, a
// directory holding charts (a charts repository checkout, or .tgz/.tar.gz
// archives), or such an archive (a `helm package` one too); archives are
// extracted under cacheDir/charts. name and version, when given, choose
// among the charts found; exactly one must be left. A relative src is taken
// from base (the suite's checkout).
func LocalChart(src, name, version, base, cacheDir string) (*Chart, error) {
	path := src
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", src, unwrapPath(err))
	}
	var found []found
	from := func(dir, where string) error {
		charts, err := findCharts(dir)
		for _, c := range charts {
			found = append(found, c.from(where))
		}
		return err
	}
	if st.IsDir() {
		if err := from(path, "directory "+path); err != nil {
			return nil, err
		}
		if len(found) == 0 {
			for _, pattern := range []string{"*.tgz", "*.tar.gz"} {
				archives, _ := filepath.Glob(filepath.Join(path, pattern))
				for _, a := range archives {
					if err := fromArchive(a, cacheDir, from); err != nil {
						return nil, fmt.Errorf("chart %q: %w", src, err)
					}
				}
			}
		}
	} else {
		if !strings.HasSuffix(path, ".tgz") && !strings.HasSuffix(path, ".tar.gz") {
			return nil, fmt.Errorf("chart %q: neither a directory nor a .tgz/.tar.gz archive", src)
		}
		if err := fromArchive(path, cacheDir, from); err != nil {
			return nil, fmt.Errorf("chart %q: %w", src, err)
		}
	}
	return choose(src, found, name, version)
}

func fromArchive(archive, cacheDir string, from func(dir, where string) error) error {
	dir, sum, err := sources.Extract(archive, filepath.Join(cacheDir, "charts"))
	if err != nil {
		return fmt.Errorf("not a readable .tgz/.tar.gz archive: %w", err)
	}
	return from(dir, fmt.Sprintf("archive %s (sha256 %s), extracted to %s", archive, sum, dir))
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// found is a chart directory and what its Chart.yaml says.
type found struct {
	dir, name, version, where string
}

func (f found) from(where string) found { f.where = where; return f }

// findCharts walks dir (searchDepth levels) for directories holding a
// Chart.yaml with a name and a version; a chart's own subdirectories (its
// subcharts) are not charts to choose.
func findCharts(dir string) ([]found, error) {
	var out []found
	var walk func(d string, depth int) error
	walk = func(d string, depth int) error {
		if meta, ok := chartMeta(d); ok {
			out = append(out, found{dir: d, name: meta.Name, version: meta.Version})
			return nil
		}
		if depth == searchDepth {
			return nil
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				if err := walk(filepath.Join(d, e.Name()), depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(dir, 0)
}

type meta struct{ Name, Version string }

func chartMeta(dir string) (meta, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return meta{}, false
	}
	var m meta
	return m, yaml.Unmarshal(data, &m) == nil && m.Name != "" && m.Version != ""
}

// choose keeps the charts found that match name and version (when given):
// exactly one, read.
func choose(src string, all []found, name, version string) (*Chart, error) {
	if len(all) == 0 {
		return nil, fmt.Errorf("chart %q: not a chart: no Chart.yaml with a name and a version in it (nor %d directories down)", src, searchDepth)
	}
	var kept []found
	var seen []string
	for _, f := range all {
		seen = append(seen, f.name+" "+f.version)
		if (name == "" || f.name == name) && (version == "" || f.version == version) {
			kept = append(kept, f)
		}
	}
	slices.Sort(seen)
	seen = slices.Compact(seen)
	want := "any chart"
	if name != "" {
		want = name
	}
	if version != "" {
		want += " of version " + version
	} else {
		want += " of any version"
	}
	switch len(kept) {
	case 0:
		return nil, fmt.Errorf("chart %q: no chart %s in it (it holds: %s)", src, want, strings.Join(seen, ", "))
	case 1:
	default:
		return nil, fmt.Errorf("chart %q: %d charts match %s (%s): name one with CHART_NAME and CHART_VERSION", src, len(kept), want, strings.Join(seen, ", "))
	}
	return readChart(kept[0].dir, kept[0].where)
}

// readChart reads a chart directory.
func readChart(dir, where string) (*Chart, error) {
	m, ok := chartMeta(dir)
	if !ok {
		return nil, fmt.Errorf("chart %s: no Chart.yaml with a name and a version", dir)
	}
	files, err := fixture.ReadTree(dir)
	if err != nil {
		return nil, fmt.Errorf("read chart %s: %w", dir, err)
	}
	return &Chart{Name: m.Name, Version: m.Version, Dir: dir, Source: where + ", chart " + dir, Files: files, Digest: fixture.Digest(files)}, nil
}

// RepoChart pulls a chart from its repository (online) through the Helm SDK
// into cacheDir: an https:// repository with the chart's name, or an oci://
// reference; the version is required.
func RepoChart(repoURL, name, version, cacheDir string) (*Chart, error) {
	if version == "" {
		return nil, fmt.Errorf("chart %q: a chart repository needs CHART_VERSION (the release to check)", repoURL)
	}
	if name == "" && !strings.HasPrefix(repoURL, "oci://") {
		return nil, fmt.Errorf("chart %q: a chart repository needs CHART_NAME (the chart's name in it)", repoURL)
	}
	dir, src, err := fixture.PullChart(cacheDir, repoURL, name, version)
	if err != nil {
		return nil, err
	}
	return readChart(dir, src)
}
