package knative

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/env"
)

// TestRenderRealModules renders each release of the matrix from the local
// module cache (skipped when a module is not there: no network in unit tests).
func TestRenderRealModules(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skip("no go env")
	}
	cache := strings.TrimSpace(string(out))
	read := func(module, version, rel string) (map[string]string, error) {
		dir := filepath.Join(cache, module+"@"+version)
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("%s@%s not in the module cache", module, version)
		}
		p := filepath.Join(dir, rel)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			data, err := os.ReadFile(p)
			return map[string]string{rel: string(data)}, err
		}
		tree, err := env.ReadTree(p)
		files := map[string]string{}
		for k, v := range tree {
			files[rel+"/"+k] = v
		}
		return files, err
	}
	for _, v := range []string{"v0.42.2", "v0.43.0", "v0.47.1"} {
		t.Run(v, func(t *testing.T) {
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
