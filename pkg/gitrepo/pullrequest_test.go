package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPinsInEveryWayATeamPinsArgoCD(t *testing.T) {
	for _, c := range []struct {
		name, content string
		want          Pin
	}{
		{"install manifest image", "containers:\n- image: quay.io/argoproj/argocd:v3.4.7\n", Pin{Release: "v3.4.7"}},
		{"kustomization images", "images:\n  - name: quay.io/argoproj/argocd\n    newTag: v3.5.1\n", Pin{Release: "v3.5.1"}},
		{"install URL", "resources:\n  - https://raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml\n", Pin{Release: "v3.5.1"}},
		{"remote base", "resources:\n  - github.com/argoproj/argo-cd/manifests/cluster-install?ref=v3.6.1\n", Pin{Release: "v3.6.1"}},
		{"Chart.yaml dependency", "apiVersion: v2\nname: argocd\ndependencies:\n  - name: argo-cd\n    version: 9.1.0\n    repository: https://argoproj.github.io/argo-helm\n", Pin{ChartVersion: "9.1.0"}},
		{"Application of the chart", "apiVersion: argoproj.io/v1alpha1\nkind: Application\nspec:\n  source:\n    chart: argo-cd\n    repoURL: https://argoproj.github.io/argo-helm\n    targetRevision: 9.2.0\n", Pin{ChartVersion: "9.2.0"}},
	} {
		got := PinsIn(c.content)
		if len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: PinsIn = %+v, want [%+v]", c.name, got, c.want)
		}
	}
	if got := PinsIn("image: quay.io/argoproj/argocd-extension:v1.0.0\nimage: ghcr.io/dexidp/dex:v2.41.1\n"); len(got) != 0 {
		t.Errorf("other images: PinsIn = %+v, want none", got)
	}
}

func TestFindBumpReadsThePullRequestsFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q", "--initial-branch=main")
	write("argocd/kustomization.yaml", "resources:\n  - https://raw.githubusercontent.com/argoproj/argo-cd/v3.4.7/manifests/install.yaml\n")
	write("platform/Chart.yaml", "apiVersion: v2\nname: platform\ndependencies:\n  - name: argo-cd\n    version: 8.0.0\n")
	write("apps/web.yaml", "image: nginx:1.27\n")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	git("branch", "base")
	write("argocd/kustomization.yaml", "resources:\n  - https://raw.githubusercontent.com/argoproj/argo-cd/v3.5.1/manifests/install.yaml\n")
	write("apps/web.yaml", "image: nginx:1.28\n")
	git("commit", "-q", "-a", "-m", "bump")
	idx := ChartIndex{"8.0.0": "v3.4.7", "9.0.0": "v3.5.1"}
	b, err := FindBump(context.Background(), dir, "base", "main", idx)
	if err != nil || b.From != "v3.4.7" || b.To != "v3.5.1" || strings.Join(b.Files, ",") != "argocd/kustomization.yaml" {
		t.Fatalf("FindBump = %+v, %v; want v3.4.7 -> v3.5.1 from argocd/kustomization.yaml", b, err)
	}
	// the chart moved too, to the same release: still one upgrade
	write("platform/Chart.yaml", "apiVersion: v2\nname: platform\ndependencies:\n  - name: argo-cd\n    version: 9.0.0\n")
	git("commit", "-q", "-a", "-m", "chart")
	if b, err := FindBump(context.Background(), dir, "base", "main", idx); err != nil || b.To != "v3.5.1" || len(b.Files) != 2 {
		t.Errorf("with the chart: %+v, %v", b, err)
	}
	// a pull request that moves nothing of ArgoCD, and a downgrade
	git("branch", "-f", "base", "main")
	write("apps/web.yaml", "image: nginx:1.29\n")
	git("commit", "-q", "-a", "-m", "app")
	if _, err := FindBump(context.Background(), dir, "base", "main", idx); err == nil || !strings.Contains(err.Error(), "no file") {
		t.Errorf("no ArgoCD change: %v", err)
	}
	write("argocd/kustomization.yaml", "resources:\n  - https://raw.githubusercontent.com/argoproj/argo-cd/v3.4.7/manifests/install.yaml\n")
	git("commit", "-q", "-a", "-m", "down")
	if _, err := FindBump(context.Background(), dir, "base", "main", idx); err == nil || !strings.Contains(err.Error(), "not an upgrade") {
		t.Errorf("a downgrade: %v", err)
	}
}

func TestParseChartIndex(t *testing.T) {
	idx, err := ParseChartIndex([]byte("apiVersion: v1\nentries:\n  argo-cd:\n    - version: 9.1.0\n      appVersion: v3.5.1\n  argocd-apps:\n    - version: 2.0.0\n      appVersion: 1.0.0\n"))
	if err != nil || idx["9.1.0"] != "v3.5.1" || len(idx) != 1 {
		t.Errorf("ParseChartIndex = %v, %v", idx, err)
	}
}
