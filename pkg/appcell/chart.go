package appcell

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

// LocalChart finds a chart on this machine (sources.Charts): src is a chart
// directory, a directory holding charts (a charts repository checkout, or
// .tgz/.tar.gz archives), or such an archive (a `helm package` one too); the
// archive of the chart chosen is extracted under cacheDir/charts. name and
// version, when given, choose among the charts found; exactly one must be
// left. A relative src is taken from base (the suite's checkout).
func LocalChart(src, name, version, base, cacheDir string) (*Chart, error) {
	path := src
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("chart %q: %w", src, UnwrapPath(err))
	}
	found, err := sources.Charts(path, searchDepth)
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", src, err)
	}
	c, err := choose(src, found, name, version)
	if err != nil {
		return nil, err
	}
	dir, how, err := c.Open(filepath.Join(cacheDir, "charts"))
	if err != nil {
		return nil, fmt.Errorf("chart %q: %w", src, err)
	}
	if c.Archive != "" {
		how = path + " (" + how + ")"
	}
	return readChart(dir, how)
}

func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// choose keeps the charts found that match name and version (when given):
// exactly one.
func choose(src string, all []sources.Chart, name, version string) (sources.Chart, error) {
	if len(all) == 0 {
		return sources.Chart{}, fmt.Errorf("chart %q: not a chart: no Chart.yaml with a name and a version in it (nor %d directories down)", src, searchDepth)
	}
	var kept []sources.Chart
	var seen []string
	for _, f := range all {
		seen = append(seen, f.Name+" "+f.Version)
		if (name == "" || f.Name == name) && (version == "" || f.Version == version) {
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
		return sources.Chart{}, fmt.Errorf("chart %q: no chart %s in it (it holds: %s)", src, want, strings.Join(seen, ", "))
	case 1:
		return kept[0], nil
	}
	return sources.Chart{}, fmt.Errorf("chart %q: %d charts match %s (%s): name one with CHART_NAME and CHART_VERSION", src, len(kept), want, strings.Join(seen, ", "))
}

// readChart reads a chart directory; source says where it came from.
func readChart(dir, source string) (*Chart, error) {
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	var m struct{ Name, Version string }
	if err != nil || yaml.Unmarshal(data, &m) != nil || m.Name == "" || m.Version == "" {
		return nil, fmt.Errorf("chart %s: no Chart.yaml with a name and a version", dir)
	}
	files, err := fixture.ReadTree(dir)
	if err != nil {
		return nil, fmt.Errorf("read chart %s: %w", dir, err)
	}
	return &Chart{Name: m.Name, Version: m.Version, Dir: dir, Source: source, Files: files, Digest: fixture.Digest(files)}, nil
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
	return readChart(dir, src+", chart "+dir)
}
