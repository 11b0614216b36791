package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// A component version the module proxy refuses is refused before the plan,
// in every mode: the suite reads the component's files from that module
// zip (make e2e SCENARIO=knative-argocd COMPONENT_VERSION=v0.0.1 planned
// four cells and priced a build, issue #73). Not in -short: it asks the
// module proxy.
func TestComponentVersionTheProxyRefuses(t *testing.T) {
	if testing.Short() {
		t.Skip("asks the Go module proxy")
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []images.Mode{images.Auto, images.Online, images.Offline} {
		err := ComponentReleaseExists(context.Background(), cat, "knative-serving", "v0.0.1", mode)
		if err == nil || !strings.Contains(err.Error(), `knative-serving version "v0.0.1"`) || !strings.Contains(err.Error(), "the catalog pins v0.42.2") {
			t.Errorf("mode %s: %v, want a refusal naming the catalog's pins", mode, err)
		}
	}
	if err := ComponentReleaseExists(context.Background(), cat, "knative-serving", "v0.50.0", images.Auto); err != nil {
		t.Errorf("a release the proxy serves: %v", err)
	}
}
