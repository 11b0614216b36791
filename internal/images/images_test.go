package images

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestKeyChangesWithRecipeAndVersion(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, "images/x"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(repo, "images/x/build.sh"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("echo one")
	v := map[string]string{"kubernetes": "v1.33.13", "etcd": "v3.5.21"}
	k1, err := Key(repo, []string{"images/x"}, v)
	if err != nil {
		t.Fatal(err)
	}
	k1again, _ := Key(repo, []string{"images/x"}, map[string]string{"etcd": "v3.5.21", "kubernetes": "v1.33.13"})
	if k1 != k1again {
		t.Fatalf("key depends on map order: %s vs %s", k1, k1again)
	}
	k2, _ := Key(repo, []string{"images/x"}, map[string]string{"kubernetes": "v1.33.14", "etcd": "v3.5.21"})
	if k1 == k2 {
		t.Fatal("a changed version must change the key")
	}
	write("echo two")
	k3, _ := Key(repo, []string{"images/x"}, v)
	if k1 == k3 {
		t.Fatal("a changed recipe must change the key")
	}
	if _, err := Key(repo, []string{"images/missing"}, v); err == nil {
		t.Fatal("a missing recipe file must be an error")
	}
}

func TestDetect(t *testing.T) {
	ctx := context.Background()
	up := func(context.Context, string) error { return nil }
	down := func(_ context.Context, url string) error {
		if url == Registries[1] {
			return errors.New("dial tcp: i/o timeout")
		}
		return nil
	}
	if m, _ := Detect(ctx, Auto, up); m != Online {
		t.Errorf("all registries up: got %s", m)
	}
	if m, why := Detect(ctx, Auto, down); m != Offline || why == "" {
		t.Errorf("one registry down: got %s (%s)", m, why)
	}
	if m, _ := Detect(ctx, Offline, up); m != Offline {
		t.Errorf("forced offline: got %s", m)
	}
	if m, _ := Detect(ctx, Online, down); m != Online {
		t.Errorf("forced online: got %s", m)
	}
	if _, err := ParseMode("sometimes"); err == nil {
		t.Error("unknown mode must be an error")
	}
}

func TestPrefixed(t *testing.T) {
	out := "SOURCE: example.com/argo-cd/v3@v3.6.1 h1:abc=\nSOURCE: example.com/argo-cd/gitops-engine/v3@v3.6.1 h1:def= as ./gitops-engine\nSOURCE: \nIMAGES:\nquay.io/argoproj/argocd:v3.6.1\n"
	got := Prefixed(out, "SOURCE: ")
	want := []string{"example.com/argo-cd/v3@v3.6.1 h1:abc=", "example.com/argo-cd/gitops-engine/v3@v3.6.1 h1:def= as ./gitops-engine"}
	if !slices.Equal(got, want) {
		t.Errorf("Prefixed = %q, want %q", got, want)
	}
	if imgs := MarkedList(out, "IMAGES:"); !slices.Equal(imgs, []string{"quay.io/argoproj/argocd:v3.6.1"}) {
		t.Errorf("the images after the sources: %q", imgs)
	}
}

func TestMarkedList(t *testing.T) {
	out := "step 1\nstep 2\nIMAGES:\nquay.io/argoproj/argocd:v2.14.11\n\nredis:7.0.15-alpine\n"
	got := MarkedList(out, "IMAGES:")
	if len(got) != 2 || got[1] != "redis:7.0.15-alpine" {
		t.Fatalf("markedList = %q", got)
	}
}

func TestCause(t *testing.T) {
	refused := errors.New("build argocd v3.0.0 images: build.sh v3.0.0: exit status 1\n" +
		"cmd/argocd-k8s-auth/commands/azure.go:7:2: github.com/Azure/kubelogin@v0.1.9: reading https://proxy.example/github.com/%21azure/kubelogin/@v/v0.1.9.zip: 403 Forbidden\n" +
		"\tserver response: This module version is not available.\n" +
		"build.sh v3.0.0: FAILED (exit 1) after 16s; logs in /cache/logs/argocd-v3.0.0")
	if got, want := Cause(refused), "its build needs github.com/Azure/kubelogin@v0.1.9, which the module proxy will not serve (403 Forbidden)"; got != want {
		t.Errorf("Cause(refused) = %q, want %q", got, want)
	}
	other := errors.New("build argocd v3.0.0 images: exit status 2\nbuild.sh v3.0.0: FAILED (exit 2) after 3s; logs in /cache/logs/argocd-v3.0.0")
	if got, want := Cause(other), "build.sh v3.0.0: FAILED (exit 2) after 3s; logs in /cache/logs/argocd-v3.0.0"; got != want {
		t.Errorf("Cause(other) = %q, want %q", got, want)
	}
}

func TestLockAsksSpaceBeforeTheBuild(t *testing.T) {
	full := errors.New("only 0.3 GiB free on /var/lib/docker (Docker's images and kind nodes)")
	b := &Builder{CacheDir: t.TempDir(), Out: io.Discard, Space: func() error { return full }}
	built := false
	err := b.lock(context.Background(), "argocd-v3.5.1", func() error { built = true; return nil })
	if built || !errors.Is(err, full) || !strings.Contains(err.Error(), "argocd-v3.5.1: only 0.3 GiB free") {
		t.Fatalf("lock on a full disk: built=%v err=%v; want the build not started and the disk's line, naming the build", built, err)
	}
	b.Space = func() error { return nil }
	if err := b.lock(context.Background(), "argocd-v3.5.1", func() error { built = true; return nil }); err != nil || !built {
		t.Fatalf("lock with space: built=%v err=%v", built, err)
	}
}
