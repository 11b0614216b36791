package lifecycle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestTimelineDescribesTheDeletion(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "Namespace", "metadata": map[string]any{
		"name": "team", "resourceVersion": "7", "finalizers": []any{"foregroundDeletion", "kargo.akuity.io/finalizer"},
		"annotations": map[string]any{"kargo.akuity.io/keep-namespace": "true", "kubectl.kubernetes.io/last-applied-configuration": "{...}"}},
		"spec": map[string]any{"finalizers": []any{"kubernetes"}}, "status": map[string]any{"phase": "Terminating"}}}
	now := metav1.Now()
	u.SetDeletionTimestamp(&now)
	yes := true
	u.SetOwnerReferences([]metav1.OwnerReference{{Kind: "Project", Name: "team", BlockOwnerDeletion: &yes}})
	d := describe(u)
	for _, want := range []string{"rv=7", "deletionTimestamp=", "phase=Terminating", "finalizers=[foregroundDeletion kargo.akuity.io/finalizer]",
		"spec.finalizers=[kubernetes]", "ownerReferences=[Project/team blockOwnerDeletion=true]", "annotations={kargo.akuity.io/keep-namespace=true}"} {
		if !strings.Contains(d, want) {
			t.Errorf("describe lacks %q: %s", want, d)
		}
	}
	if strings.Contains(d, "last-applied") {
		t.Errorf("describe must leave out bulky annotations: %s", d)
	}

	_, c := WithCell(context.Background(), t.TempDir())
	tl := &timeline{name: "team", cancel: func() {}}
	c.timelines = append(c.timelines, tl)
	tl.add(Object{Kind: "namespace", Name: "team"}, "MODIFIED", u)
	lines, ok := c.TimelineLines("team")
	if !ok || len(lines) != 1 || !strings.Contains(lines[0], " MODIFIED namespace team rv=7") {
		t.Fatalf("lines: %q %v", lines, ok)
	}
	if _, ok := c.TimelineLines("other"); ok {
		t.Fatal("no such timeline")
	}
	tl.stop(c)
	data, err := os.ReadFile(filepath.Join(c.Dir, "timeline-team.txt"))
	if err != nil || !strings.Contains(string(data), "MODIFIED namespace team") {
		t.Fatalf("written timeline: %s %v", data, err)
	}
}
