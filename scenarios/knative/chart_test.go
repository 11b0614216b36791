package knative

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/helm"
)

func TestChartRendersServingCoreAsIs(t *testing.T) {
	base := fakeModules(t)
	read := func(module, version, rel string) (map[string]string, error) {
		files, err := base(module, version, rel)
		if err != nil || module != servingModule || rel != "config/core" {
			return files, err
		}
		files["config/core/deployments/webhook.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: webhook\n  namespace: knative-serving\nspec:\n" +
			"  template:\n    spec:\n      containers:\n      - name: webhook\n        image: ko://knative.dev/serving/cmd/webhook\n        env:\n        - name: SYSTEM_NAMESPACE\n          value: knative-serving\n"
		files["config/core/configmaps/domain.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-domain\ndata:\n  _example: |\n    domain-template: \"{{.Name}}.{{.Namespace}}.{{.Domain}}\"\n"
		return files, nil
	}
	for _, flag := range []bool{false, true} {
		files, err := Chart(read, "v0.43.0", flag)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		for p, content := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if !strings.Contains(files["Chart.yaml"], "version: 1.16.0") {
			t.Errorf("the chart's version is the Knative release:\n%s", files["Chart.yaml"])
		}
		out, err := helm.RenderAll(context.Background(), helm.Release{Name: "knative-serving", Namespace: "knative-serving", Chart: dir})
		if err != nil {
			t.Fatalf("flag %v: %v", flag, err)
		}
		if !strings.Contains(out, `domain-template: "{{.Name}}.{{.Namespace}}.{{.Domain}}"`) {
			t.Errorf("flag %v: the example's template printed as it is:\n%s", flag, out)
		}
		if strings.Contains(out, "kind: Namespace") {
			t.Errorf("flag %v: the Namespace is made beforehand, not by the chart", flag)
		}
		if got := strings.Contains(out, "name: "+FlagEnv) && strings.Contains(out, "name: SYSTEM_NAMESPACE"); got != flag {
			t.Errorf("flag %v: the webhook's env carries %s: %v\n%s", flag, FlagEnv, got, out)
		}
	}
}
