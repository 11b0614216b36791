package helm

import (
	"strings"
	"testing"
)

// Without a cluster, lookup answers nothing, as under ArgoCD's repo server;
// each document keeps its template, hooks apart.
func TestTemplatesWithoutAClusterLookupFindsNothing(t *testing.T) {
	docs, err := Templates(Release{Name: "r", Namespace: "ns", Chart: "testdata/lookup"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d documents, want 2: %+v", len(docs), docs)
	}
	if d := docs[0]; d.Template != "lookup/templates/configmap.yaml" || d.Hook || !strings.Contains(d.Manifest, `found: "no"`) {
		t.Errorf("first document %+v: want the ConfigMap of lookup/templates/configmap.yaml with found: \"no\"", d)
	}
	if d := docs[1]; !d.Hook || !strings.Contains(d.Manifest, "kind: Job") {
		t.Errorf("second document %+v: want the hook Job", d)
	}
}
