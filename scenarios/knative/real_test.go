package knative

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// TestRenderRealModules renders each Knative release of the matrix from its
// Go module, fetched the way the suite fetches it (the module proxy, exact
// version), so it passes on an empty module cache. Not in -short (make unit):
// it needs the network. It skips a release, saying why, only where the module
// proxy answers that it cannot serve it; no answer at all fails.
func TestRenderRealModules(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: downloads knative.dev/serving module zips from the module proxy")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	read := fixture.ReadModules(ctx)
	for _, v := range []string{"v0.42.2", "v0.43.0", "v0.47.1", "v0.50.0"} {
		t.Run(v, func(t *testing.T) {
			_, err := sources.ModuleDir(ctx, servingModule, v)
			if err != nil && !sources.NotPublished(err) && !strings.Contains(err.Error(), "403 Forbidden") {
				t.Fatalf("no answer from the module proxy for %s@%s (this test needs the network; -short leaves it out): %v", servingModule, v, err)
			}
			if err != nil {
				t.Skipf("the module proxy cannot serve %s@%s: %v", servingModule, v, err)
			}
			files, err := Render(read, v, true)
			if err != nil {
				t.Fatal(err)
			}
			core := files["serving-core.yaml"]
			for _, want := range []string{
				"name: images.caching.internal.knative.dev", "name: serverlessservices.networking.internal.knative.dev",
				"name: config-network", "name: " + config, Registry + "webhook:" + v, Registry + "controller:" + v,
			} {
				if !strings.Contains(core, want) {
					t.Errorf("serving-core.yaml lacks %q", want)
				}
			}
			if strings.Contains(core, "ko://") {
				t.Error("serving-core.yaml keeps a ko:// reference")
			}
		})
	}
}
