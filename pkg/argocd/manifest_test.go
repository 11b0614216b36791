package argocd

import (
	"slices"
	"testing"
)

func TestManifestImages(t *testing.T) {
	manifest := `spec:
  template:
    spec:
      initContainers:
      - image: quay.io/argoproj/argocd:v2.14.11
      containers:
      - name: dex
        image: ghcr.io/dexidp/dex:v2.41.1
      - image: "redis:7.0.15-alpine"
        imagePullPolicy: Always
      - name: again
        image: quay.io/argoproj/argocd:v2.14.11
`
	got := ManifestImages(manifest)
	want := []string{"quay.io/argoproj/argocd:v2.14.11", "ghcr.io/dexidp/dex:v2.41.1", "redis:7.0.15-alpine"}
	if !slices.Equal(got, want) {
		t.Errorf("ManifestImages = %v, want %v", got, want)
	}
}
