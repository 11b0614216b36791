package catalog

import "testing"

func TestEmbeddedCatalog(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if c.Kubernetes.Version == "" || len(c.ArgoCD.Default) < 3 {
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

func TestFromSourcesFromTheNestedGitopsEngineOn(t *testing.T) {
	c, _ := Load()
	for tag, want := range map[string]bool{
		"v2.14.21": false, "v3.2.12": false, "v3.3.0-rc1": true, "v3.3.0": true, "v3.4.7": true, "v3.5.1": true, "v3.10.0": true,
	} {
		if got := MustRelease(tag).FromSources(); got != want {
			t.Errorf("%s: FromSources = %v, want %v", tag, got, want)
		}
	}
	if _, err := Parse([]byte("kind: v0.27.0\nkubernetes: {version: v1}\nargocd: {default: [v2.14.11], smoke: v2.14.11, modules: {v2: m}, sources: {env: X, from: soon}}\n")); err == nil {
		t.Error("a malformed sources.from must be rejected")
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
