package gitrepo

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// A team pins its ArgoCD release in one of these ways; each pattern's
// first group is the release (v3.5.1) or, for the chart, its version.
var (
	// the install manifests' image, in a manifest or a kustomization's images
	imagePin = regexp.MustCompile(`quay\.io/argoproj/argocd:(v\d+\.\d+\.\d+)\b`)
	newTag   = regexp.MustCompile(`name:\s*["']?quay\.io/argoproj/argocd["']?\s*\n\s*(?:newName:[^\n]*\n\s*)?newTag:\s*["']?(v\d+\.\d+\.\d+)`)
	// upstream's install manifests by URL: raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml,
	// or a kustomize remote base github.com/argoproj/argo-cd/manifests/cluster-install?ref=v3.5.1
	installURL = regexp.MustCompile(`argoproj/argo-cd/(v\d+\.\d+\.\d+)/manifests/`)
	remoteBase = regexp.MustCompile(`argoproj/argo-cd/+manifests/[^\s"'?]*\?ref=(v\d+\.\d+\.\d+)`)
)

// Pin is where a file pins ArgoCD: the release, or the argo-cd chart's
// version (ChartVersion) that Releases maps to one.
type Pin struct {
	Release      string
	ChartVersion string
}

// PinsIn are the ArgoCD pins a file's content holds.
func PinsIn(content string) []Pin {
	var out []Pin
	for _, re := range []*regexp.Regexp{imagePin, newTag, installURL, remoteBase} {
		for _, m := range re.FindAllStringSubmatch(content, -1) {
			out = appendNew(out, Pin{Release: m[1]})
		}
	}
	for _, v := range chartPins(content) {
		out = appendNew(out, Pin{ChartVersion: v})
	}
	return out
}

// chartPins are the argo-cd chart's versions a file names: a Chart.yaml's
// dependency, an Application's source (chart: argo-cd, targetRevision), a
// helmfile's or a kustomization's helmCharts entry.
func chartPins(content string) []string {
	var out []string
	for _, doc := range strings.Split(content, "\n---") {
		var obj any
		if yaml.Unmarshal([]byte(doc), &obj) != nil {
			continue
		}
		walkMaps(obj, func(m map[string]any) {
			name, _ := m["name"].(string)
			chart, _ := m["chart"].(string)
			if name != "argo-cd" && chart != "argo-cd" && !strings.HasSuffix(chart, "/argo-cd") {
				return
			}
			for _, k := range []string{"version", "targetRevision"} {
				if v, ok := m[k].(string); ok && v != "" {
					out = appendNew(out, strings.TrimPrefix(v, "v"))
				}
			}
		})
	}
	return out
}

func walkMaps(v any, fn func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		fn(t)
		for _, x := range t {
			walkMaps(x, fn)
		}
	case []any:
		for _, x := range t {
			walkMaps(x, fn)
		}
	}
}

// ChartIndex maps the argo-cd chart's versions to the ArgoCD release each
// installs: its index.yaml's appVersion (argoproj/argo-helm).
type ChartIndex map[string]string

// ParseChartIndex reads a Helm repository's index.yaml for the argo-cd chart.
func ParseChartIndex(data []byte) (ChartIndex, error) {
	var idx struct {
		Entries map[string][]struct {
			Version    string `json:"version"`
			AppVersion string `json:"appVersion"`
		} `json:"entries"`
	}
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("the chart index: %w", err)
	}
	out := ChartIndex{}
	for _, e := range idx.Entries["argo-cd"] {
		out[e.Version] = e.AppVersion
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the chart index has no argo-cd chart")
	}
	return out, nil
}

// release is the ArgoCD release a pin names.
func (idx ChartIndex) release(p Pin) (string, error) {
	if p.Release != "" {
		return p.Release, nil
	}
	rel, ok := idx[p.ChartVersion]
	if !ok {
		return "", fmt.Errorf("the argo-cd chart %s is not in the chart index", p.ChartVersion)
	}
	return rel, nil
}

// Bump is the ArgoCD upgrade a pull request makes: FROM at its base, TO at
// its head, and the files that say so.
type Bump struct {
	From, To string
	Files    []string
}

// FindBump reads the ArgoCD release the files a pull request changes
// (git diff base...head in the checkout dir) pin, at its base and at its
// head: the upgrade to check. A pull request that changes no pin, or pins
// several releases on one side, is said so in one line.
func FindBump(ctx context.Context, dir, base, head string, idx ChartIndex) (Bump, error) {
	git := func(args ...string) (string, error) {
		return shell.Run(ctx, shell.Cmd{Name: "git", Args: append([]string{"-C", dir}, args...)})
	}
	changed, err := git("diff", "--name-only", "-z", base+"..."+head)
	if err != nil {
		return Bump{}, fmt.Errorf("the pull request's files: %w", err)
	}
	var b Bump
	var froms, tos []string
	for _, f := range strings.Split(strings.TrimRight(changed, "\x00"), "\x00") {
		if f == "" {
			continue
		}
		before, err := fileAt(git, base, f)
		if err != nil {
			return Bump{}, err
		}
		after, err := fileAt(git, head, f)
		if err != nil {
			return Bump{}, err
		}
		from, err := releases(PinsIn(before), idx)
		if err != nil {
			return Bump{}, fmt.Errorf("%s at %s: %w", f, base, err)
		}
		to, err := releases(PinsIn(after), idx)
		if err != nil {
			return Bump{}, fmt.Errorf("%s at %s: %w", f, head, err)
		}
		if len(from) == 0 || len(to) == 0 || slices.Equal(from, to) {
			continue
		}
		b.Files = append(b.Files, f)
		froms, tos = appendNew(froms, from...), appendNew(tos, to...)
	}
	switch {
	case len(b.Files) == 0:
		return Bump{}, fmt.Errorf("no file the pull request changes moves ArgoCD's release (an argocd image tag, upstream's install manifests' URL, the argo-cd chart's version)")
	case len(froms) != 1 || len(tos) != 1:
		return Bump{}, fmt.Errorf("the pull request pins several ArgoCD releases (%s before, %s after, in %s): name FROM and TO", strings.Join(froms, ", "), strings.Join(tos, ", "), strings.Join(b.Files, ", "))
	}
	b.From, b.To = froms[0], tos[0]
	if catalog.CompareTags(b.To, b.From) <= 0 {
		return Bump{}, fmt.Errorf("the pull request moves ArgoCD from %s to %s, not an upgrade", b.From, b.To)
	}
	return b, nil
}

// fileAt is a file's content at a commit, "" where the commit has no such
// file (the pull request adds or deletes it); a read that failed is an
// error, not an empty file.
func fileAt(git func(...string) (string, error), rev, f string) (string, error) {
	listed, err := git("ls-tree", "--name-only", rev, "--", f)
	if err != nil {
		return "", fmt.Errorf("%s at %s: %w", f, rev, err)
	}
	if strings.TrimSpace(listed) == "" {
		return "", nil
	}
	out, err := git("show", rev+":"+f)
	if err != nil {
		return "", fmt.Errorf("%s at %s: %w", f, rev, err)
	}
	return out, nil
}

func releases(pins []Pin, idx ChartIndex) ([]string, error) {
	var out []string
	for _, p := range pins {
		r, err := idx.release(p)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(r, "v") {
			r = "v" + r
		}
		out = appendNew(out, r)
	}
	slices.Sort(out)
	return out, nil
}

// appendNew appends the items list does not hold yet.
func appendNew[T comparable](list []T, items ...T) []T {
	for _, s := range items {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}
