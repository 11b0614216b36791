package knative

import (
	"fmt"
	"strings"
	"testing"
)

// fakeModules is a module reader over an in-memory layout of three modules.
func fakeModules(t *testing.T) func(module, version, rel string) (map[string]string, error) {
	mods := map[string]map[string]string{
		"knative.dev/serving@v0.43.0": {
			"go.mod":                                 "module knative.dev/serving\n\nrequire (\n\tknative.dev/caching v0.0.0-1\n\tknative.dev/networking v0.0.0-2\n)\n",
			"config/core/100-namespace.yaml":         "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: knative-serving\n  labels:\n    app.kubernetes.io/version: devel\n",
			"config/core/deployments/webhook.yaml":   "kind: Deployment\nmetadata:\n  name: webhook\n  labels:\n    app.kubernetes.io/version: devel\nspec:\n  image: ko://knative.dev/serving/cmd/webhook\n",
			"config/core/configmaps/deployment.yaml": "kind: ConfigMap\ndata:\n  queue-sidecar-image: ko://knative.dev/serving/cmd/queue\n",
			"config/core/placeholder.go":             "package core\n",
		},
		"knative.dev/caching@v0.0.0-1":    {"config/image.yaml": "kind: CustomResourceDefinition # images\n"},
		"knative.dev/networking@v0.0.0-2": {},
	}
	for _, f := range []string{"certificate", "domain-claim", "ingress", "serverlessservice", "config-network"} {
		mods["knative.dev/networking@v0.0.0-2"]["config/"+f+".yaml"] = "kind: X # " + f + "\n"
	}
	return func(module, version, rel string) (map[string]string, error) {
		m, ok := mods[module+"@"+version]
		if !ok {
			t.Fatalf("unexpected module %s@%s", module, version)
		}
		out := map[string]string{}
		for k, v := range m {
			if k == rel || strings.HasPrefix(k, rel+"/") {
				out[k] = v
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no %s in %s@%s", rel, module, version)
		}
		return out, nil
	}
}

func TestRender(t *testing.T) {
	files, err := Render(fakeModules(t), "v0.43.0", false)
	if err != nil {
		t.Fatal(err)
	}
	core := files["serving-core.yaml"]
	for _, want := range []string{
		"image: gcr.io/knative-releases/knative.dev/serving/cmd/webhook:v0.43.0",
		"queue-sidecar-image: gcr.io/knative-releases/knative.dev/serving/cmd/queue:v0.43.0",
		`app.kubernetes.io/version: "1.16.0"`,
		"# images", "# serverlessservice", "# config-network", "# domain-claim",
	} {
		if !strings.Contains(core, want) {
			t.Errorf("serving-core.yaml lacks %q:\n%s", want, core)
		}
	}
	if strings.Contains(core, "ko://") || strings.Contains(core, "kind: Namespace") || strings.Contains(core, "package core") {
		t.Errorf("serving-core.yaml keeps a ko:// reference, the Namespace or a Go file:\n%s", core)
	}
	// lexical order, as ko resolve -R: the linked CRDs before the deployments
	if strings.Index(core, "# images") > strings.Index(core, "cmd/webhook") {
		t.Errorf("documents out of order:\n%s", core)
	}
	if !strings.Contains(files["namespace.yaml"], "kind: Namespace") || strings.Contains(files["kustomization.yaml"], "namespace.yaml\n") {
		t.Errorf("the Namespace must be apart from the kustomization: %v", files)
	}
	if strings.Contains(files["kustomization.yaml"], FlagEnv) {
		t.Errorf("bug must carry no flag:\n%s", files["kustomization.yaml"])
	}
	flagged, err := Render(fakeModules(t), "v0.43.0", true)
	if err != nil {
		t.Fatal(err)
	}
	if k := flagged["kustomization.yaml"]; !strings.Contains(k, "- name: "+FlagEnv+"\n              value: \"true\"") ||
		!strings.Contains(k, "target: {kind: Deployment, name: webhook, namespace: knative-serving}") {
		t.Errorf("env-flag kustomization:\n%s", k)
	}
}

func TestReleaseAndRequired(t *testing.T) {
	for v, want := range map[string]string{"v0.42.2": "1.15.2", "v0.43.0": "1.16.0", "v0.47.1": "1.20.1", "v0.50.0": "1.23.0"} {
		if got, err := Release(v); err != nil || got != want {
			t.Errorf("Release(%s) = %q, %v; want %s", v, got, err, want)
		}
	}
	if _, err := Release("v1.16.0"); err == nil {
		t.Error("Release(v1.16.0) must fail: not a module version")
	}
	gomod := "module x\n\nrequire knative.dev/pkg v0.0.0-3\nrequire (\n\tknative.dev/caching v0.0.0-1 // indirect\n)\n"
	if v, err := Required(gomod, "knative.dev/caching"); err != nil || v != "v0.0.0-1" {
		t.Errorf("Required = %q, %v", v, err)
	}
	if v, err := Required(gomod, "knative.dev/pkg"); err != nil || v != "v0.0.0-3" {
		t.Errorf("Required single-line = %q, %v", v, err)
	}
	if _, err := Required(gomod+"replace knative.dev/caching => ../caching\n", "knative.dev/caching"); err == nil {
		t.Error("a replaced module must be an error")
	}
}
