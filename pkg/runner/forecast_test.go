package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/internal/images"
)

// The builds still needed must fit on the disk with a run's DiskMin beside
// them; a cached build takes nothing.
func TestFitsDisk(t *testing.T) {
	f := Forecast{Builds: []Build{{What: "node image v1.33.13", Disk: 10}, {What: "argocd v2.14.11", Disk: 5, Present: true}}}
	if f.Disk() != 10 {
		t.Fatalf("Disk = %v, want 10 (the cached build takes nothing)", f.Disk())
	}
	if err := f.FitsDisk(15<<30, "/var/lib/docker"); err != nil {
		t.Errorf("15 GiB free for 10 + 4: %v", err)
	}
	err := f.FitsDisk(12<<30, "/var/lib/docker")
	if err == nil || !strings.Contains(err.Error(), "about 10 GiB") || !strings.Contains(err.Error(), "12.0 GiB is free on /var/lib/docker") {
		t.Errorf("12 GiB free for 10 + 4: %v", err)
	}
	if err := (Forecast{}).FitsDisk(0, "/"); err != nil {
		t.Errorf("nothing to build: %v", err)
	}
}

// The node images and the ArgoCD releases build side by side, the
// components after them; a cached build costs nothing.
func TestColdBuildsSideBySide(t *testing.T) {
	f := Forecast{Builds: []Build{
		{Recipe: images.NodeRecipe, Cost: 15 * time.Minute},
		{Recipe: "argocd", Cost: 10 * time.Minute},
		{Recipe: "argocd-tree", Cost: 17 * time.Minute},
		{Recipe: "knative", Cost: 13 * time.Minute},
		{Recipe: "argocd", Cost: 10 * time.Minute, Present: true},
	}}
	if got, want := f.Cold()-f.Warm(), 40*time.Minute; got != want {
		t.Errorf("cold - warm = %s, want %s (max(15, 10+17) + 13)", got, want)
	}
}
