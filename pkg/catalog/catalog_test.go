package catalog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEmbeddedCatalog(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Kubernetes.DefaultVersion().Etcd == "" || len(c.ArgoCD.Default) < 3 {
		t.Fatalf("catalog incomplete: %+v", c)
	}
	for name, comp := range c.Components {
		if len(comp.Versions) == 0 {
			t.Errorf("component %s has no versions", name)
		}
	}
}

func TestReleaseParsesOnceWithItsModule(t *testing.T) {
	c, _ := Load()
	for tag, want := range map[string]string{
		"v2.14.5":      "github.com/argoproj/argo-cd/v2",
		"v3.0.0":       "github.com/argoproj/argo-cd/v3",
		"v3.1.0-rc2":   "github.com/argoproj/argo-cd/v3",
		"v2.14.21":     "github.com/argoproj/argo-cd/v2",
		"v2.13.3":      "github.com/argoproj/argo-cd/v2",
		"v3.10.11-rc1": "github.com/argoproj/argo-cd/v3",
	} {
		r, err := c.Release(tag)
		if err != nil || r.Module() != want || r.String() != tag || r.IsZero() {
			t.Errorf("Release(%s) = %+v, %v; want module %s", tag, r, err, want)
		}
	}
	for _, bad := range []string{"2.14.5", "v2.14", "latest", "v4.0.0", "v2.14.5-beta", ""} {
		if _, err := c.Release(bad); err == nil {
			t.Errorf("Release(%q) must be an error", bad)
		}
	}
	if !(Release{}).IsZero() {
		t.Error("the zero Release must be none")
	}
	if _, err := c.Component("nope"); err == nil {
		t.Error("an unknown component must be an error")
	}
}

// From v3.3.0 (the nested gitops-engine) to before v3.6.0 (the engine tagged
// with the release: two module zips build) a release needs its tree offline.
func TestFromSourcesFromTheNestedGitopsEngineOn(t *testing.T) {
	c, _ := Load()
	for tag, want := range map[string]bool{
		"v2.14.21": false, "v3.2.12": false, "v3.3.0-rc1": true, "v3.3.0": true, "v3.4.7": true, "v3.5.1": true, "v3.5.7": true,
		"v3.6.0": false, "v3.6.1": false, "v3.10.0": false,
	} {
		if got := MustRelease(tag).FromSources(); got != want {
			t.Errorf("%s: FromSources = %v, want %v", tag, got, want)
		}
	}
	if _, err := Parse([]byte("kind: v0.27.0\nkubernetes: {version: v1}\nargocd: {default: [v2.14.11], smoke: v2.14.11, modules: {v2: m}, sources: {env: X, from: soon}}\n")); err == nil {
		t.Error("a malformed sources.from must be rejected")
	}
	for _, until := range []string{"soon", "v3.3.0", "v3.2.0"} {
		if _, err := Parse([]byte(strings.Replace(string(raw), "until: v3.6.0", "until: "+until, 1))); err == nil {
			t.Errorf("sources.until %s (not a tag after from) must be rejected", until)
		}
	}
	if _, err := Parse([]byte(strings.Replace(string(raw), "goToolchains: [go1.27.3]", "goToolchains: [1.27]", 1))); err == nil {
		t.Error("goToolchains: a name that is no Go release must be rejected")
	}
	src := c.ArgoCD.Sources
	if got, want := src.Span(), "v3.3.0 up to (not including) v3.6.0"; got != want {
		t.Errorf("Span() = %q, want %q", got, want)
	}
	for v, want := range map[string]bool{"v3.2.12": false, "v3.3.0": true, "v3.5.7": true, "v3.6.0": false} {
		if src.Needs(v) != want {
			t.Errorf("Needs(%s) = %v, want %v", v, !want, want)
		}
	}
	if r, err := c.Release("v2.14.11"); err != nil || r.FromSources() {
		t.Errorf("v2.14.11 builds from its module zip: %+v %v", r, err)
	}
}

func TestParseRejectsIncomplete(t *testing.T) {
	if _, err := Parse([]byte("kind: v0.27.0\n")); err == nil {
		t.Fatal("a catalog without kubernetes and argocd must be rejected")
	}
	if _, err := Parse([]byte("kind: v0.27.0\nkubernetes: {version: v1}\nargocd: {default: [nonsense]}\n")); err == nil {
		t.Fatal("a malformed default tag must be rejected")
	}
}

func TestKubernetesAxisTakesVersionsAndMinorsAndRefusesTheRest(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"v1.35.4": "v1.35.4", "v1.35": "v1.35.4", "1.33": "v1.33.13"} {
		got, err := c.Kubernetes.Get(in)
		if err != nil || got.Version != want {
			t.Errorf("Get(%q) = %q, %v; want %s", in, got.Version, err, want)
		}
	}
	_, err = c.Kubernetes.Get("v1.36.2")
	var unknown *UnknownKube
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "v1.33.13") {
		t.Errorf("v1.36.2: %v; want UnknownKube naming the axis", err)
	}
	if _, err := c.Kubernetes.Get("latest"); err == nil || errors.As(err, &unknown) {
		t.Errorf("latest: %v; want not a version", err)
	}
	axis, err := c.Kubernetes.Select(nil)
	if err != nil || len(axis) != 1 || axis[0].Version != c.Kubernetes.Default {
		t.Errorf("Select(nil) = %v, %v; want the default", axis, err)
	}
	if axis, _ := c.Kubernetes.Select([]string{"v1.35", "v1.35.4"}); len(axis) != 1 {
		t.Errorf("a version named twice: %v", axis)
	}
}

func TestKubernetesEntryChecks(t *testing.T) {
	base := "kind: v0.27.0\nargocd: {default: [v2.14.11], smoke: v2.14.11, modules: {v2: m}}\n"
	for name, kube := range map[string]string{
		"no default":       "kubernetes: {versions: [{version: v1.33.13, etcd: v3.5.24, coredns: v1.12.0, onlineNodeImage: i}]}",
		"default off axis": "kubernetes: {default: v1.35.4, versions: [{version: v1.33.13, etcd: v3.5.24, coredns: v1.12.0, onlineNodeImage: i}]}",
		"no etcd":          "kubernetes: {default: v1.33.13, versions: [{version: v1.33.13, coredns: v1.12.0, onlineNodeImage: i}]}",
		"two of a minor": "kubernetes: {default: v1.33.13, versions: [{version: v1.33.13, etcd: e, coredns: c, onlineNodeImage: i}," +
			" {version: v1.33.1, etcd: e, coredns: c, onlineNodeImage: i}]}",
	} {
		if _, err := Parse([]byte(base + kube + "\n")); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestOnlineVersionIsTheNodeImagesTag(t *testing.T) {
	k := KubeVersion{Version: "v1.37.2", OnlineNodeImage: "kindest/node:v1.37.0@sha256:a1ed"}
	if k.OnlineVersion() != "v1.37.0" || k.Running(false) != "v1.37.0" || k.Running(true) != "v1.37.2" {
		t.Errorf("online %s, running online %s, offline %s", k.OnlineVersion(), k.Running(false), k.Running(true))
	}
}

func TestComponentMinimumKubernetes(t *testing.T) {
	c := Component{MinKubernetes: map[string]string{"v0.47.1": "v1.32.0"}}
	if why := c.Unsupported("v0.47.1", "v1.30.4"); !strings.Contains(why, "v1.32.0") {
		t.Errorf("v0.47.1 on v1.30.4: %q", why)
	}
	if why := c.Unsupported("v0.47.1", "v1.33.13"); why != "" {
		t.Errorf("v0.47.1 on v1.33.13: %q", why)
	}
	if why := c.Unsupported("v0.43.0", "v1.30.4"); why != "" {
		t.Errorf("no minimum known: %q", why)
	}
}

func TestParseRefusesAnUnobtainablePin(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if why := c.Components["knative-serving"].UnobtainableWhy("v0.51.0", false); !strings.Contains(why, "knative.dev/pkg") {
		t.Errorf("knative-serving v0.51.0: %q, want why (the refused knative.dev modules)", why)
	}
	bad := strings.Replace(string(raw), "versions: [v0.42.2, v0.43.0, v0.47.1, v0.50.0]", "versions: [v0.42.2, v0.43.0, v0.47.1, v0.50.0, v0.51.0]", 1)
	if _, err := Parse([]byte(bad)); err == nil || !strings.Contains(err.Error(), "both a version and unobtainable") {
		t.Errorf("a pinned unobtainable release: %v", err)
	}
}

func TestUnobtainableOfflineOnly(t *testing.T) {
	c := Component{Unobtainable: map[string]Unobtainable{"v1.19.1": {Offline: true, Why: "a chart dependency from a Helm repository"}, "v0.51.0": {Why: "refused zips"}}}
	if why := c.UnobtainableWhy("v1.19.1", true); why != "offline: a chart dependency from a Helm repository" {
		t.Errorf("offline: %q", why)
	}
	if why := c.UnobtainableWhy("v1.19.1", false); why != "" {
		t.Errorf("online: %q, want nothing known against it", why)
	}
	if c.UnobtainableWhy("v0.51.0", false) != "refused zips" || c.UnobtainableWhy("v0.51.0", true) != "refused zips" {
		t.Error("a release unobtainable in both modes")
	}
}

// A source tree is told from any other directory by a file it holds: the
// entry names one, as a relative slash path, and only with a tree.
func TestSourcesTreeNeedsItsMarker(t *testing.T) {
	const head = "kind: v0.27.0\nkubernetes: {default: v1.33.13, versions: [{version: v1.33.13, etcd: v3.5.24, coredns: v1.12.0, onlineNodeImage: kindest/node:v1.33.1}]}\nargocd:\n  default: [v2.14.11]\n  smoke: v2.14.11\n  modules: {v2: m}\n  "
	for line, want := range map[string]string{
		"sources: {env: X_SOURCES, tree: x}":                      "go together",
		"sources: {env: X_SOURCES, marker: go.mod}":               "go together",
		"sources: {env: X_SOURCES, tree: x, marker: /abs/go.mod}": "not a relative slash path",
		"sources: {env: X_SOURCES, tree: x, marker: sub/go.mod}":  "",
		"sources: {env: X_SOURCES, chart: true, default: a/b}":    "",
	} {
		_, err := Parse([]byte(head + line + "\n"))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: err = %v, want %q", line, err, want)
		}
	}
}

// A source's path is its variable's value, else its default under the
// checkout when that exists, else none: the Makefile's rule.
func TestSourcesPath(t *testing.T) {
	repo := t.TempDir()
	s := &Sources{Env: "DEMO_SOURCES_PATH_TEST", Default: "shared/demo"}
	t.Setenv(s.Env, "")
	if got := s.Path(repo); got != "" {
		t.Errorf("no variable, no default on disk: %q, want none", got)
	}
	if err := os.MkdirAll(filepath.Join(repo, "shared", "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := s.Path(repo); got != filepath.Join(repo, "shared", "demo") {
		t.Errorf("the default on disk: %q", got)
	}
	t.Setenv(s.Env, "/elsewhere")
	if got := s.Path(repo); got != "/elsewhere" {
		t.Errorf("the variable set: %q, want it", got)
	}
}

// The approved toolchain comes from the go line: 3.6's `go 1.27.0` builds
// with go1.27.3, never a version named per release.
func TestGoToolchain(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	for need, want := range map[string]string{"1.27.0": "go1.27.3", "1.27": "go1.27.3", "1.27.3": "go1.27.3"} {
		if got, err := c.GoToolchain(need); err != nil || got != want {
			t.Errorf("GoToolchain(%s) = %q, %v; want %s", need, got, err, want)
		}
	}
	for _, need := range []string{"1.27.4", "1.28.0", "1.26.0"} {
		if got, err := c.GoToolchain(need); err == nil {
			t.Errorf("GoToolchain(%s) = %q; want no approved toolchain", need, got)
		}
	}
	if got := strings.Join(ToolchainEnv("go1.27.3"), " "); got != "GOTOOLCHAIN=go1.27.3 GOSUMDB=sum.golang.org GONOSUMDB=*" {
		t.Errorf("ToolchainEnv = %s", got)
	}
}

// The suite's own Go is go.mod's toolchain line (the Makefile's
// GOTOOLCHAIN=auto takes it): it is the approved toolchain of go.mod's Go
// minor, so the suite and the releases it builds take one Go 1.27 from the
// module proxy, not two.
func TestSuiteToolchainIsApproved(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var need, toolchain string
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "go "); ok {
			need = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(l, "toolchain "); ok {
			toolchain = strings.TrimSpace(v)
		}
	}
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if want, err := c.GoToolchain(need); err != nil || toolchain != want {
		t.Errorf("go.mod: go %s, toolchain %q; the catalog's approved toolchain for it is %q (%v)", need, toolchain, want, err)
	}
	if got := strings.Join(SuiteToolchainEnv(), " "); got != "GOTOOLCHAIN=auto GOSUMDB=sum.golang.org GONOSUMDB=*" {
		t.Errorf("SuiteToolchainEnv = %s", got)
	}
}
