package catalog

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/shell"
)

//go:embed catalog.yaml
var raw []byte

// Catalog is the parsed catalog.yaml.
type Catalog struct {
	Kind string `json:"kind"`
	// GoToolchains are the Go toolchains a build may take from the module
	// proxy (GOTOOLCHAIN=go1.27.3) when a release's go line asks for a newer
	// Go than the machine's: one approved patch per Go minor. The recipes
	// read them (images/argocd/gotoolchain.sh).
	GoToolchains []string             `json:"goToolchains,omitempty"`
	Kubernetes   Kubernetes           `json:"kubernetes"`
	ArgoCD       ArgoCD               `json:"argocd"`
	Components   map[string]Component `json:"components"`
}

// Kubernetes is the Kubernetes axis: the versions a cell can run on, each
// pinning its node image's parts, and the one a cell runs on when neither
// the user (KUBERNETES=) nor its scenario names others.
type Kubernetes struct {
	Default  string        `json:"default"`
	Versions []KubeVersion `json:"versions"`
}

// KubeVersion is one Kubernetes release a cluster can run: offline the
// suite builds its node image (images/node/build.sh) from these parts,
// online it runs OnlineNodeImage.
type KubeVersion struct {
	Version string `json:"version"`
	// Etcd and CoreDNS are the releases kubeadm of Version asks for.
	Etcd    string `json:"etcd"`
	CoreDNS string `json:"coredns"`
	// OnlineNodeImage is kind's published node image, pinned by digest.
	OnlineNodeImage string `json:"onlineNodeImage"`
	// Why it is on the axis.
	Why string `json:"why,omitempty"`
}

// Minor is the version's minor line, "1.33".
func (k KubeVersion) Minor() string {
	m := releaseTag.FindStringSubmatch(k.Version)
	if m == nil {
		return ""
	}
	return m[1] + "." + m[2]
}

// OnlineVersion is the Kubernetes version of the online node image (its
// tag), which may be another patch of the minor than Version.
func (k KubeVersion) OnlineVersion() string {
	ref, _, _ := strings.Cut(k.OnlineNodeImage, "@")
	if i := strings.LastIndex(ref, ":"); i >= 0 && releaseTag.MatchString(ref[i+1:]) {
		return ref[i+1:]
	}
	return k.Version
}

// Running is the version a cluster of this entry runs: the built node
// image's offline, the published one's online.
func (k KubeVersion) Running(offline bool) string {
	if offline {
		return k.Version
	}
	return k.OnlineVersion()
}

// Names are the axis' versions, in the catalog's order.
func (k Kubernetes) Names() []string {
	var n []string
	for _, v := range k.Versions {
		n = append(n, v.Version)
	}
	return n
}

// Get returns the catalog's entry for version: its exact version, or its
// minor (v1.35, 1.35) when the catalog has one patch of it.
func (k Kubernetes) Get(version string) (KubeVersion, error) {
	want := strings.TrimPrefix(version, "v")
	for _, v := range k.Versions {
		if v.Version == version || v.Minor() == want {
			return v, nil
		}
	}
	if !releaseTag.MatchString(version) && !minorTag.MatchString(version) {
		return KubeVersion{}, fmt.Errorf("kubernetes %q is not a version (like %s)", version, strings.Join(k.Names(), ", "))
	}
	return KubeVersion{}, &UnknownKube{Version: version, Known: k.Names()}
}

// UnknownKube is a well-formed Kubernetes version the catalog has no entry
// for (no node image parts, no online image).
type UnknownKube struct {
	Version string
	Known   []string
}

func (e *UnknownKube) Error() string {
	return fmt.Sprintf("kubernetes %q is not on the catalog's axis (%s): pkg/catalog/catalog.yaml kubernetes.versions pins each version's etcd, coredns and online node image",
		e.Version, strings.Join(e.Known, ", "))
}

// Default is the catalog's default version.
func (k Kubernetes) DefaultVersion() KubeVersion {
	v, _ := k.Get(k.Default) // Parse checked it
	return v
}

// Select returns the entries for versions, in order, each once; an empty
// list is the catalog's default.
func (k Kubernetes) Select(versions []string) ([]KubeVersion, error) {
	if len(versions) == 0 {
		versions = []string{k.Default}
	}
	var out []KubeVersion
	for _, v := range versions {
		kv, err := k.Get(v)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, kv) {
			out = append(out, kv)
		}
	}
	return out, nil
}

var minorTag = regexp.MustCompile(`^v?\d+\.\d+$`)

// ArgoCD names the default version axis and where a tag's sources live.
type ArgoCD struct {
	Default []string          `json:"default"`
	Smoke   string            `json:"smoke"`
	Modules map[string]string `json:"modules"`
	// Sources: offline, the releases from Sources.From on build from a
	// source tree the user names instead of the module zip.
	Sources *Sources `json:"sources,omitempty"`
	// SupportedLines is how many of the newest minor lines upstream
	// supports (make releases reads the lines from the module proxy).
	SupportedLines int `json:"supportedLines,omitempty"`
}

// Component is a project a scenario installs.
type Component struct {
	Module    string            `json:"module,omitempty"`
	Versions  []string          `json:"versions"`
	Files     map[string]string `json:"files,omitempty"`
	OnlineURL string            `json:"onlineURL,omitempty"`
	// Published is, for an input the user provides as a file tree (a chart
	// directory), the content sha256 (fixture.Digest) of the tree each
	// version was published as, keyed by that version: a provided tree that
	// differs (a branch head, a directory edited after the release) is not
	// the release, and no cell runs on it.
	Published map[string]string `json:"published,omitempty"`
	// Sources: offline, what the module proxy lacks for this component comes
	// from a directory or archive the user names.
	Sources *Sources `json:"sources,omitempty"`
	// MinKubernetes is, per version, the oldest Kubernetes release that
	// version runs on, as the component itself says (its cells on an older
	// one are SKIPPED).
	MinKubernetes map[string]string `json:"minKubernetes,omitempty"`
	// Unobtainable are releases newer than the pins that cannot be run here
	// (the proxy serves the module but not all it needs), each with why:
	// make list and make releases say so, and naming one is refused.
	Unobtainable map[string]Unobtainable `json:"unobtainable,omitempty"`
	// UnobtainableFrom are rules for every release from a version on (a
	// chart that from some release depends on what this mode cannot have),
	// each with why: a release the walk finds newer is judged by them.
	UnobtainableFrom []UnobtainableFrom `json:"unobtainableFrom,omitempty"`
}

// FromTree reports whether the component's images build, offline, from a
// source tree the user provides (its Sources name one: Kargo) rather than
// from its module zip.
func (c Component) FromTree() bool { return c.Sources != nil && c.Sources.Tree != "" }

// UnobtainableFrom is why every release from From on cannot be run here.
type UnobtainableFrom struct {
	From string `json:"from"`
	Unobtainable
}

// Unobtainable is why a release cannot be run here.
type Unobtainable struct {
	// Offline: only offline (online, what it lacks would come from where
	// an offline machine cannot reach).
	Offline bool   `json:"offline,omitempty"`
	Why     string `json:"why"`
}

// UnobtainableWhy says why version cannot be run in the mode (offline or
// not), "" when nothing is known against it.
func (c Component) UnobtainableWhy(version string, offline bool) string {
	u, ok := c.Unobtainable[version]
	for _, r := range c.UnobtainableFrom {
		if !ok && CompareTags(version, r.From) >= 0 {
			u, ok = r.Unobtainable, true
			u.Why = "from " + r.From + " on: " + u.Why
		}
	}
	if !ok || u.Offline && !offline {
		return ""
	}
	if u.Offline {
		return "offline: " + u.Why
	}
	return u.Why
}

// Unsupported says why version of the component does not run on Kubernetes
// kube (its own minimum), or "".
func (c Component) Unsupported(version, kube string) string {
	min := c.MinKubernetes[version]
	if min == "" || CompareTags(kube, min) >= 0 {
		return ""
	}
	return fmt.Sprintf("%s requires Kubernetes %s or newer (its own minimum), this cell is on %s", version, min, kube)
}

// Sources is what, offline, comes from a directory or archive the user
// names in an environment variable (a relative path is taken from the
// suite's checkout) instead of from the module proxy.
type Sources struct {
	Env string `json:"env"`
	// Tree: a source tree per tag, a checkout <tree>-<tag>/ (or <tag>/) or
	// an archive of one, <tree>-<tag>.tar.gz (.tgz).
	Tree string `json:"tree,omitempty"`
	// Marker is a file (slash path) every tree holds, telling it from any
	// other directory: gitops-engine/go.mod, charts/kargo/Chart.yaml.
	Marker string `json:"marker,omitempty"`
	// Chart: the component's chart (its files.chart path, {version} the
	// release without the v) in a charts tree, an archive of one, or a
	// directory of such archives.
	Chart bool `json:"chart,omitempty"`
	// From is the first release that needs it; empty: every release.
	From string `json:"from,omitempty"`
	// Until is the first release from which it is needed no more; empty:
	// none. ArgoCD's from v3.6.0: its go.mod requires the nested engine at
	// the release's own tag, a module the proxy serves, so the two module
	// zips are the tree (images/argocd/build.sh).
	Until string `json:"until,omitempty"`
	// Default is where Env points when the user sets nothing: a path
	// relative to the suite's checkout, used only when it exists. The
	// Makefile reads it through the CLI (MakeDefaults: SOURCE_DEFAULTS), so a
	// new source needs no line of its own there.
	Default string `json:"default,omitempty"`
}

// Path is where Env points, as the Makefile sets it: its value, else Default
// (under repo, the suite's checkout) when that exists, else "".
func (s *Sources) Path(repo string) string {
	if v := os.Getenv(s.Env); v != "" {
		return v
	}
	if s.Default == "" {
		return ""
	}
	if p := filepath.Join(repo, s.Default); exists(p) {
		return p
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// AllSources is every Sources entry of the catalog, ArgoCD's first, then the
// components' in name order.
func (c *Catalog) AllSources() []*Sources {
	var all []*Sources
	if c.ArgoCD.Sources != nil {
		all = append(all, c.ArgoCD.Sources)
	}
	for _, name := range keys(c.Components) {
		if s := c.Components[name].Sources; s != nil {
			all = append(all, s)
		}
	}
	return all
}

var (
	envName    = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	sourcePath = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
)

// check refuses an entry the Makefile could not read or a shell could not name.
func (s *Sources) check() error {
	if !envName.MatchString(s.Env) {
		return fmt.Errorf("sources.env %q is not an environment variable name (A-Z, 0-9, _)", s.Env)
	}
	if (s.Tree == "") != (s.Marker == "") {
		return fmt.Errorf("sources.tree and sources.marker of %s go together: a tree is told by a file it holds", s.Env)
	}
	if s.Marker != "" && (!sourcePath.MatchString(s.Marker) || strings.HasPrefix(s.Marker, "/")) {
		return fmt.Errorf("sources.marker %q of %s is not a relative slash path", s.Marker, s.Env)
	}
	if s.Default != "" && (!sourcePath.MatchString(s.Default) || strings.HasPrefix(s.Default, "/")) {
		return fmt.Errorf("sources.default %q of %s is not a relative path of letters, digits, '.', '_', '-' and '/'", s.Default, s.Env)
	}
	return nil
}

// Needs reports whether, offline, version needs s (From and later, before
// Until).
func (s *Sources) Needs(version string) bool {
	return s != nil && (s.From == "" || CompareTags(version, s.From) >= 0) && (s.Until == "" || CompareTags(version, s.Until) < 0)
}

// Span says which releases need s, as a sentence's subject: "v3.3.0 and
// later", "v3.3.0 to v3.5.x (before v3.6.0)".
func (s *Sources) Span() string {
	from := s.From
	if from == "" {
		from = "every release"
	}
	if s.Until == "" {
		return from + " and later"
	}
	return from + " up to (not including) " + s.Until
}

var (
	sha256Hex   = regexp.MustCompile(`^[0-9a-f]{64}$`)
	goToolchain = regexp.MustCompile(`^go1\.\d+\.\d+$`)
)

// Load parses the embedded catalog.
func Load() (*Catalog, error) {
	return Parse(raw)
}

// Parse parses catalog YAML and checks that it is complete.
func Parse(data []byte) (*Catalog, error) {
	var c Catalog
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("parse catalog: %w", err)
	}
	if c.Kubernetes.Default == "" || len(c.Kubernetes.Versions) == 0 || c.Kind == "" || len(c.ArgoCD.Default) == 0 {
		return nil, fmt.Errorf("parse catalog: kind, kubernetes.default, kubernetes.versions and argocd.default are required")
	}
	if err := c.Kubernetes.check(); err != nil {
		return nil, fmt.Errorf("parse catalog: %w", err)
	}
	if src := c.ArgoCD.Sources; src != nil && src.From != "" && !releaseTag.MatchString(src.From) {
		return nil, fmt.Errorf("parse catalog: argocd.sources.from %q is not a release tag", src.From)
	}
	if src := c.ArgoCD.Sources; src != nil && src.Until != "" && (!releaseTag.MatchString(src.Until) || CompareTags(src.Until, src.From) <= 0) {
		return nil, fmt.Errorf("parse catalog: argocd.sources.until %q is not a release tag after from %q", src.Until, src.From)
	}
	for _, t := range c.GoToolchains {
		if !goToolchain.MatchString(t) {
			return nil, fmt.Errorf("parse catalog: goToolchains: %q is not a Go release (go1.27.3)", t)
		}
	}
	for _, src := range c.AllSources() {
		if err := src.check(); err != nil {
			return nil, fmt.Errorf("parse catalog: %w", err)
		}
	}
	if _, err := c.Releases(append(slices.Clone(c.ArgoCD.Default), c.ArgoCD.Smoke)); err != nil {
		return nil, fmt.Errorf("parse catalog: %w", err)
	}
	for name, comp := range c.Components {
		for v, sum := range comp.Published {
			if !sha256Hex.MatchString(sum) {
				return nil, fmt.Errorf("parse catalog: component %q: published %q: %q is not a sha256 (64 hex digits)", name, v, sum)
			}
		}
		for _, r := range comp.UnobtainableFrom {
			for _, v := range comp.Versions {
				if CompareTags(v, r.From) >= 0 && !r.Offline {
					return nil, fmt.Errorf("parse catalog: component %q: %s is a version and unobtainable from %s on", name, v, r.From)
				}
			}
			if strings.TrimSpace(r.Why) == "" {
				return nil, fmt.Errorf("parse catalog: component %q: unobtainableFrom %s says no why", name, r.From)
			}
		}
		for v, u := range comp.Unobtainable {
			switch {
			case slices.Contains(comp.Versions, v):
				return nil, fmt.Errorf("parse catalog: component %q: %s is both a version and unobtainable", name, v)
			case strings.TrimSpace(u.Why) == "":
				return nil, fmt.Errorf("parse catalog: component %q: unobtainable %s says no why", name, v)
			}
		}
	}
	return &c, nil
}

// check refuses an entry without its parts, a version twice, and a default
// the axis does not have.
func (k Kubernetes) check() error {
	seen := map[string]bool{}
	for _, v := range k.Versions {
		switch {
		case !releaseTag.MatchString(v.Version):
			return fmt.Errorf("kubernetes.versions: %q is not a release version", v.Version)
		case v.Etcd == "" || v.CoreDNS == "" || v.OnlineNodeImage == "":
			return fmt.Errorf("kubernetes.versions: %s needs etcd, coredns and onlineNodeImage", v.Version)
		case seen[v.Minor()]:
			return fmt.Errorf("kubernetes.versions: two versions of %s (one per minor)", v.Minor())
		}
		seen[v.Minor()] = true
	}
	if _, err := k.Get(k.Default); err != nil {
		return fmt.Errorf("kubernetes.default: %w", err)
	}
	return nil
}

var releaseTag = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)(-rc\d+)?$`)

// File returns a component and the path, inside its module, of the file or
// directory the catalog names under key.
func (c *Catalog) File(component, key string) (Component, string, error) {
	comp, err := c.Component(component)
	if err != nil {
		return Component{}, "", err
	}
	rel, ok := comp.Files[key]
	if !ok {
		return Component{}, "", fmt.Errorf("component %q has no file %q in the catalog", component, key)
	}
	return comp, rel, nil
}

// Component returns a component by name.
func (c *Catalog) Component(name string) (Component, error) {
	comp, ok := c.Components[name]
	if !ok {
		return Component{}, fmt.Errorf("component %q is not in the catalog (known: %s)", name, strings.Join(keys(c.Components), ", "))
	}
	return comp, nil
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// GoToolchain is the approved toolchain (GoToolchains) for a module whose go
// line says need ("1.27.0", "1.27") when the machine's Go is older: the one
// of need's minor, not older than need. As images/argocd/gotoolchain.sh
// picks it for the recipes.
func (c *Catalog) GoToolchain(need string) (string, error) {
	n := goVersion(need)
	for _, t := range c.GoToolchains {
		v := goVersion(strings.TrimPrefix(t, "go"))
		if v[0] == n[0] && v[1] == n[1] && compareNumbers(v, n) >= 0 {
			return t, nil
		}
	}
	return "", fmt.Errorf("go %s is asked for and the catalog approves no Go %d.%d toolchain (goToolchains: %s)", need, n[0], n[1], strings.Join(c.GoToolchains, ", "))
}

// goVersion reads "1.27.3" or "1.27" (patch 0).
func goVersion(v string) [3]int {
	var n [3]int
	_, _ = fmt.Sscanf(v, "%d.%d.%d", &n[0], &n[1], &n[2])
	return n
}

// ToolchainEnv is the environment a go command runs with under toolchain
// (GoToolchain's), by shell.GoEnv's rule: a switched toolchain is verified
// against the checksum database, every module else read as under GOSUMDB=off.
func ToolchainEnv(toolchain string) []string { return shell.GoEnv(toolchain) }

// SuiteToolchainEnv is the environment a go command building the suite's own
// code runs with, as the Makefile sets it: GOTOOLCHAIN=auto takes go.mod's
// toolchain line (go1.27.3) from the module proxy where the machine's Go is
// older, under ToolchainEnv's checksum rules.
func SuiteToolchainEnv() []string { return ToolchainEnv("auto") }
