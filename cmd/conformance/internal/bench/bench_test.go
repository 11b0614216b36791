package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestQuickSummary(t *testing.T) {
	rows := []QuickRow{
		{Scenario: "kubeovn-argocd", Run: "20261128-050000", Wall: 9*time.Minute + 5*time.Second},
		{Scenario: "kyverno-argocd", Run: "20261128-051000", Wall: 16 * time.Minute, Exit: 1},
	}
	got := QuickSummary(rows, 15*time.Minute)
	for _, want := range []string{
		"| kubeovn-argocd | 20261128-050000 | 9m5s | within the 15 min budget | exit 0 |",
		"| kyverno-argocd | 20261128-051000 | 16m0s | OVER the 15 min budget | exit 1 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("QuickSummary lacks %q:\n%s", want, got)
		}
	}
	if rows[0].Over(15*time.Minute) || !rows[1].Over(15*time.Minute) {
		t.Error("Over does not tell a run over its budget")
	}
}

func TestRatio(t *testing.T) {
	if got := Ratio(100*time.Second, 50*time.Second); got != "0.50 (2.0x as fast)" {
		t.Errorf("Ratio(100s, 50s) = %q", got)
	}
	if got := Ratio(0, 50*time.Second); !strings.HasPrefix(got, "no ratio") {
		t.Errorf("Ratio(0, 50s) = %q", got)
	}
}

func TestMatrixRuns(t *testing.T) {
	runs := Matrix{Parallel: 3, Deliver: "registry", Prefix: "bench"}.Runs()
	if len(runs) != 2 || strings.Join(runs[0].Args, " ") != "-clusters 1 -deliver load -cluster bench-seq" ||
		strings.Join(runs[1].Args, " ") != "-clusters 3 -deliver registry -cluster bench-par" || runs[1].Name != "PARALLEL=3" {
		t.Errorf("Runs = %+v", runs)
	}
}

func TestDeliveryTable(t *testing.T) {
	got := DeliveryTable([]DeliveryTimes{
		{Release: "v2.14.11", Load: 20 * time.Second, Push: 30 * time.Second, Pull: 10 * time.Second},
		{Release: "v3.5.1", Load: 10 * time.Second, Push: 10 * time.Second, Pull: 5 * time.Second},
	})
	for _, want := range []string{
		"| v2.14.11 | 20.0 | 30.0 | 10.0 |",
		"| all | 30.0 | 40.0 | 15.0 |",
		"- 1 cluster(s): kind load 30 s, registry 55 s (push once + 1 pulls)",
		"- 4 cluster(s): kind load 120 s, registry 100 s (push once + 4 pulls)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("DeliveryTable lacks %q:\n%s", want, got)
		}
	}
}

func TestBlobsServedToContainerd(t *testing.T) {
	log := `172.18.0.3 - - [x] "GET /v2/argoproj/argocd/blobs/sha256:aa?ns=quay.io HTTP/1.1" 200 1 "" "containerd/v1.7.24"
172.18.0.3 - - [x] "GET /v2/argoproj/argocd/manifests/v2.14.11?ns=quay.io HTTP/1.1" 200 1 "" "containerd/v1.7.24"
172.18.0.1 - - [x] "GET /v2/argoproj/argocd/blobs/sha256:aa HTTP/1.1" 200 1 "" "docker/27.3.1"
time="x" level=info msg="GET /v2/argoproj/argocd/blobs/sha256:aa containerd/"
`
	if n := len(blobByCRI.FindAllString(log, -1)); n != 1 {
		t.Errorf("blobs served to containerd: %d, want 1", n)
	}
}

func TestPickNodeImage(t *testing.T) {
	imgs := []string{"gitops-conformance/node:v1.33.13-base", "gitops-conformance/node:bench",
		"gitops-conformance/node:v1.35.4-abc", "gitops-conformance/node:v1.33.13-def"}
	if got := PickNodeImage(imgs, "v1.33.13"); got != "gitops-conformance/node:v1.33.13-def" {
		t.Errorf("PickNodeImage(v1.33.13) = %q", got)
	}
	if got := PickNodeImage(imgs, "v1.34.1"); got != "gitops-conformance/node:v1.35.4-abc" {
		t.Errorf("PickNodeImage(v1.34.1) = %q, want the other node image", got)
	}
	if got := PickNodeImage(imgs[:2], "v1.33.13"); got != "" {
		t.Errorf("PickNodeImage(base, bench only) = %q, want none", got)
	}
}

func TestTimings(t *testing.T) {
	var b strings.Builder
	tm := &Timings{Out: &b}
	tm.Record("cluster create", 1500*time.Millisecond)
	tm.Note("reuse ratio (fresh / reused)", "1.80")
	if !strings.Contains(b.String(), "cluster create") || !strings.Contains(tm.Table(), "| cluster create | 1.5 s |\n| reuse ratio (fresh / reused) | 1.80 |") {
		t.Errorf("printed %q, table %q", b.String(), tm.Table())
	}
}

// A cold build removes the base images its recipe builds on, as the recipe
// names them: Kargo's and kyverno's (kubectl) have one each.
func TestColdBuildFindsTheRecipesBases(t *testing.T) {
	for recipe, want := range map[string]string{"kargo": "gitops-conformance/kargo-base", "kyverno": "gitops-conformance/kubectl-base"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "images", recipe, "build.sh"))
		if err != nil {
			t.Fatal(err)
		}
		if got := baseImage.FindAllString(string(data), -1); !slices.Contains(got, want) {
			t.Errorf("images/%s/build.sh: bases %v, want %s among them", recipe, got, want)
		}
	}
}
