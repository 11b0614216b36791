package registry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestParseMirror(t *testing.T) {
	for in, want := range map[string]Mirror{
		"mirror.corp:5000":          {"http", "mirror.corp:5000"},
		"http://172.18.0.5:5000":    {"http", "172.18.0.5:5000"},
		"https://mirror.corp:443/":  {"https", "mirror.corp:443"},
		" [fd00::1]:5000 ":          {"http", "[fd00::1]:5000"},
		"https://registry.local:80": {"https", "registry.local:80"},
	} {
		got, err := ParseMirror(in)
		if err != nil || got != want {
			t.Errorf("ParseMirror(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "mirror.corp", "mirror.corp:", "mirror.corp:0", "mirror.corp:99999", "ftp://m:1",
		"mirror.corp:5000/path", ":5000", "user@m:5000", "m:port"} {
		if _, err := ParseMirror(in); err == nil || !strings.Contains(err.Error(), "want host:port") {
			t.Errorf("ParseMirror(%q) = %v; want an error naming the form", in, err)
		}
	}
}

func TestHostsTOML(t *testing.T) {
	m := Mirror{"http", "172.18.0.5:5000"}
	got := m.HostsTOML("docker.io")
	for _, want := range []string{`server = "https://registry-1.docker.io"`, `[host."http://172.18.0.5:5000"]`, `capabilities = ["pull", "resolve"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("HostsTOML(docker.io) lacks %q:\n%s", want, got)
		}
	}
	if got := m.HostsTOML("quay.io"); !strings.Contains(got, `server = "https://quay.io"`) {
		t.Errorf("HostsTOML(quay.io):\n%s", got)
	}
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]Ref{
		"redis:7.0.15-alpine":                    {Host: "docker.io", Path: "library/redis", Tag: "7.0.15-alpine"},
		"bitnami/kubectl:1.32.3":                 {Host: "docker.io", Path: "bitnami/kubectl", Tag: "1.32.3"},
		"quay.io/argoproj/argocd:v2.14.11":       {Host: "quay.io", Path: "argoproj/argocd", Tag: "v2.14.11"},
		"registry.k8s.io/pause:3.10":             {Host: "registry.k8s.io", Path: "pause", Tag: "3.10"},
		"ghcr.io/dexidp/dex":                     {Host: "ghcr.io", Path: "dexidp/dex", Tag: "latest"},
		"localhost:5001/x/y:1":                   {Host: "localhost:5001", Path: "x/y", Tag: "1"},
		"docker.io/library/redis:7":              {Host: "docker.io", Path: "library/redis", Tag: "7"},
		"gcr.io/knative-releases/a/b@sha256:abc": {Host: "gcr.io", Path: "knative-releases/a/b", Digest: "sha256:abc"},
	} {
		got, err := ParseRef(in)
		if err != nil || got != want {
			t.Errorf("ParseRef(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	r, _ := ParseRef("redis:7.0.15-alpine")
	if got := r.MirrorName("127.0.0.1:5001"); got != "127.0.0.1:5001/library/redis:7.0.15-alpine" {
		t.Errorf("MirrorName = %s", got)
	}
}

func TestMirrorHasAndProbe(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.Method+" "+r.URL.RequestURI())
		switch r.URL.Path {
		case "/v2/":
			w.WriteHeader(http.StatusUnauthorized) // a registry asking for credentials still answers
		case "/v2/argoproj/argocd/manifests/v2.14.11":
			w.WriteHeader(http.StatusOK)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	m, err := ParseMirror(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := m.Probe(ctx); err != nil {
		t.Errorf("Probe: %v", err)
	}
	if ok, err := m.Has(ctx, "quay.io/argoproj/argocd:v2.14.11"); !ok || err != nil {
		t.Errorf("Has(argocd) = %v, %v", ok, err)
	}
	if ok, err := m.Has(ctx, "ghcr.io/dexidp/dex:v2.41.1"); ok || err != nil {
		t.Errorf("Has(dex) = %v, %v", ok, err)
	}
	if want := "HEAD /v2/argoproj/argocd/manifests/v2.14.11?ns=quay.io"; asked[1] != want {
		t.Errorf("asked %q, want %q", asked[1], want)
	}
	srv.Close()
	if err := m.Probe(ctx); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("Probe of a closed server = %v", err)
	}
	// an interceptor answering every host with 404 is not a registry
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	defer other.Close()
	m, _ = ParseMirror(other.URL)
	if err := m.Probe(ctx); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Probe of a non-registry = %v", err)
	}
}

func TestPushRefusesAHostTheNodesDoNotPullThroughIt(t *testing.T) {
	err := (&Local{}).PushImage(context.Background(), "example.org/team/app:1")
	if err == nil || !strings.Contains(err.Error(), "do not pull example.org") {
		t.Fatalf("push of an unmirrored host: %v", err)
	}
	// ArgoCD 3.x's redis: mirrored since a v3.1.4 install went ImagePullBackOff through the registry
	if !slices.Contains(Upstreams, "public.ecr.aws") {
		t.Error("public.ecr.aws is not mirrored")
	}
}
