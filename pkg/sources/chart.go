package sources

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// Chart is a Helm chart Find found: a directory whose Chart.yaml has a
// name and a version.
type Chart struct {
	Found
	Name, Version string
}

// Charts finds every Helm chart in src (see Find) down to depth
// directories below it, or below an archive's top: src is a chart's
// directory, a directory holding charts (a charts repository's checkout), a
// .tar.gz/.tgz archive of either (a `helm package` one too), or a directory
// of such archives.
func Charts(src string, depth int) ([]Chart, error) {
	found, err := Find(src, Look{Is: isChart, Read: []string{"Chart.yaml"}, Depth: depth})
	if err != nil {
		return nil, err
	}
	charts := make([]Chart, len(found))
	for i, f := range found {
		name, version, _ := strings.Cut(f.What, " ")
		charts[i] = Chart{Found: f, Name: name, Version: version}
	}
	return charts, nil
}

func isChart(read func(string) ([]byte, bool)) (string, bool) {
	data, ok := read("Chart.yaml")
	if !ok {
		return "", false
	}
	var meta struct{ Name, Version string }
	if yaml.Unmarshal(data, &meta) != nil || meta.Name == "" || meta.Version == "" || strings.Contains(meta.Name, " ") {
		return "", false
	}
	return meta.Name + " " + meta.Version, true
}

// UserCharts are a component's charts from where an environment variable
// points (OPENKRUISE_CHARTS; a relative path is taken from the suite's
// checkout): a directory holding the chart at Path (a checkout of the
// chart's repository), or anywhere as deep or one directory deeper (that
// checkout one level down; a `helm package` layout, <chart>/); a
// .tar.gz/.tgz archive of either; or a directory of such archives. The
// chart is the first one found whose Chart.yaml names the name and the
// version asked for.
type UserCharts struct {
	Env  string // OPENKRUISE_CHARTS
	Path string // where its repository keeps the chart, {version} filled: versions/kruise/1.5.2
}

// Find finds the chart name at version without extracting anything
// (Found.Open does). Without it, a *Missing says what it looked at and what
// to provide.
func (c UserCharts) Find(repo, name, version string) (Found, error) {
	want := fmt.Sprintf("chart %s %s", name, version)
	provide := fmt.Sprintf("set %s to a directory holding %s (a checkout of the chart's repository), an archive (.tar.gz) of one, or a directory of such archives",
		c.Env, c.Path)
	root, err := envRoot(c.Env, repo, want, provide)
	if err != nil {
		return Found{}, err
	}
	charts, err := Charts(root, strings.Count(c.Path, "/")+2)
	if err != nil {
		return Found{}, &Missing{Why: fmt.Sprintf("offline, %s comes from %s=%s: %v; %s", want, c.Env, root, err, provide)}
	}
	for _, ch := range charts {
		if ch.Name == name && ch.Version == version {
			return ch.Found, nil
		}
	}
	return Found{}, &Missing{Why: fmt.Sprintf("offline, %s is not in %s=%s (looked for it at %s and as deep or one directory deeper, in it and in its .tar.gz/.tgz archives): %s",
		want, c.Env, root, c.Path, provide)}
}
