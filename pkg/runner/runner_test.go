package runner

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

func testRunner(t *testing.T, cells ...matrix.Cell) *Runner {
	dir := t.TempDir()
	return &Runner{Run: &lifecycle.Run{Out: io.Discard}, Data: &matrix.Data{}, Cells: cells, Repeat: 1,
		Dir: filepath.Join(dir, "run"), report: &report.Report{RunID: "run"}}
}

func cell(variant string) matrix.Cell {
	return matrix.Cell{Scenario: matrix.Scenario{Name: "kubeovn-argocd"}, Variant: matrix.Variant{Name: variant}, ArgoCD: catalog.MustRelease("v2.14.11")}
}

// After an interrupt no cell starts, and the report lists those not run
// apart from those that ran, with why the run stopped.
func TestInterruptedRunStartsNoCellAndListsTheRest(t *testing.T) {
	r := testRunner(t, cell("bug"), cell("ignore-differences"))
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted by interrupt"))
	ran := false
	if _, ok := r.Cell(ctx, r.Cells[0], func(context.Context, features.Feature) bool { ran = true; return true }); ok || ran {
		t.Fatalf("a cell started after the interrupt (ok %v, ran %v)", ok, ran)
	}
	rep := r.Finish("interrupted by interrupt")
	if len(rep.NotRun) != 2 || len(rep.Cells) != 0 || !rep.Failed() {
		t.Fatalf("not run %d, cells %d, failed %v", len(rep.NotRun), len(rep.Cells), rep.Failed())
	}
	loaded, err := report.Load(filepath.Join(r.Dir, "report.json"))
	if err != nil || loaded.Stopped != "interrupted by interrupt" {
		t.Fatalf("report.json: %v, stopped %q", err, loaded.Stopped)
	}
	if s := Summary(rep); !strings.Contains(s, "not run") || !strings.Contains(s, "interrupted by interrupt") {
		t.Errorf("summary does not say what was not run and why:\n%s", s)
	}
}

func TestInterruptedReasonNamesTheCause(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("interrupted by terminated"))
	got := interrupted(ctx, "wait application argocd/x Synced: context canceled\nmore")
	if !strings.HasPrefix(got, "interrupted by terminated") || strings.Contains(got, "more") {
		t.Errorf("interrupted() = %q", got)
	}
}

// A cell whose component version does not support the cell's Kubernetes
// (its own minimum) is SKIPPED with that minimum, before any cluster: never
// run, never ERROR. Online the published image's version is the one compared.
func TestCellBelowTheComponentsMinimumKubernetesIsSkipped(t *testing.T) {
	cat := &catalog.Catalog{Components: map[string]catalog.Component{
		"knative-serving": {Versions: []string{"v0.43.0", "v0.47.1"}, MinKubernetes: map[string]string{"v0.43.0": "v1.28.0", "v0.47.1": "v1.32.0"}}}}
	knative := func(version string, kube catalog.KubeVersion) matrix.Cell {
		return matrix.Cell{Scenario: matrix.Scenario{Name: "knative-argocd", Component: "knative-serving"}, Variant: matrix.Variant{Name: "bug"},
			ArgoCD: catalog.MustRelease("v2.14.11"), ComponentVersion: version, Kubernetes: kube}
	}
	k130 := catalog.KubeVersion{Version: "v1.30.4", OnlineNodeImage: "kindest/node:v1.30.13"}
	k133 := catalog.KubeVersion{Version: "v1.33.13", OnlineNodeImage: "kindest/node:v1.33.1"}
	if why := skipped(cat, knative("v0.47.1", k130), images.Offline); !strings.Contains(why, "requires Kubernetes v1.32.0") || !strings.Contains(why, "v1.30.4") {
		t.Errorf("1.20 on v1.30.4: %q", why)
	}
	if why := skipped(cat, knative("v0.47.1", k130), images.Online); !strings.Contains(why, "v1.30.13") {
		t.Errorf("online, the published image's version: %q", why)
	}
	for _, c := range []matrix.Cell{knative("v0.43.0", k130), knative("v0.47.1", k133)} {
		if why := skipped(cat, c, images.Offline); why != "" {
			t.Errorf("%s on %s: skipped %q", c.ComponentVersion, c.Kubernetes.Version, why)
		}
	}
	r := testRunner(t, knative("v0.47.1", k130), knative("v0.47.1", k133))
	r.Run.Catalog, r.Run.Mode = cat, images.Offline
	if !r.needsCluster(images.Offline) || r.Run.Kubernetes != k133 {
		t.Errorf("the first cluster is %q, want the first cell that runs (v1.33.13)", r.Run.Kubernetes.Version)
	}
}
