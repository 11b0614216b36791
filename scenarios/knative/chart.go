package knative

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/fixture"
)

// Chart is Knative Serving's core as a Helm chart, for make conform's
// validation (suites/conform.yaml): Knative publishes serving-core.yaml, not
// a chart, so the chart is that manifest as Render makes it (without the
// Namespace, which the check makes beforehand, as the scenario keeps it
// out of the Application), its one template, with the text/template
// delimiters of its ConfigMaps' examples escaped so Helm prints them as
// they are. With flag the webhook Deployment carries
// WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP=true, as the env-flag variant's
// kustomize patch sets it. The chart's version is the Knative release.
func Chart(read fixture.ModuleReader, version string, flag bool) (map[string]string, error) {
	files, err := Render(read, version, false)
	if err != nil {
		return nil, err
	}
	release, err := Release(version)
	if err != nil {
		return nil, err
	}
	core := files["serving-core.yaml"]
	if flag {
		if core, err = withFlag(core); err != nil {
			return nil, err
		}
	}
	flagged := ""
	if flag {
		flagged = ", the webhook with " + FlagEnv + "=true"
	}
	chart := fmt.Sprintf(`apiVersion: v2
name: knative-serving
description: >-
  Knative Serving %s core (serving-core.yaml as the suite renders it from %s@%s%s),
  packaged as a chart by the suite for make conform's validation; not a chart Knative publishes.
type: application
version: %s
appVersion: %q
`, release, servingModule, version, flagged, release, release)
	return map[string]string{"Chart.yaml": chart, "templates/serving-core.yaml": escapeTemplates(core)}, nil
}

// escapeTemplates makes Helm print text/template delimiters as they are.
func escapeTemplates(s string) string {
	return strings.ReplaceAll(s, "{{", `{{"{{"}}`)
}

// withFlag sets the flag on the webhook Deployment's webhook container.
func withFlag(core string) (string, error) {
	docs := strings.Split(core, "\n---\n")
	for i, doc := range docs {
		var o unstructured.Unstructured
		if err := yaml.Unmarshal([]byte(doc), &o.Object); err != nil || o.GetKind() != "Deployment" || o.GetName() != "webhook" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
		for j, c := range containers {
			m, _ := c.(map[string]any)
			if m["name"] != "webhook" {
				continue
			}
			env, _ := m["env"].([]any)
			m["env"] = append(env, map[string]any{"name": FlagEnv, "value": "true"})
			containers[j] = m
			if err := unstructured.SetNestedSlice(o.Object, containers, "spec", "template", "spec", "containers"); err != nil {
				return "", err
			}
			data, err := yaml.Marshal(o.Object)
			if err != nil {
				return "", err
			}
			docs[i] = "# the webhook with " + FlagEnv + "=true\n" + strings.TrimSpace(string(data))
			return strings.Join(docs, "\n---\n"), nil
		}
	}
	return "", fmt.Errorf("serving-core.yaml has no Deployment webhook with a container webhook")
}
