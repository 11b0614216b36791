package openkruise

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/fixture"
)

const (
	namespace = "kruise-system"
	manager   = "kruise-controller-manager"
	service   = "kruise-webhook-service"
	mutating  = "kruise-mutating-webhook-configuration"
	podHook   = "mpod.kb.io"
	// label is what the chart puts on the namespace it creates and what its
	// pod webhooks' namespaceSelector excludes.
	label = "control-plane=openkruise"
)

// chartPodSelector is the namespaceSelector chart kruise 1.5.2 gives the pod
// webhooks mpod.kb.io, vpod.kb.io and vpodeviction.kb.io
// (openkruise/charts versions/kruise/1.5.2/templates/webhookconfiguration.yaml,
// commit 6e0c7c3a06acba88b086144384794397dad43221). The module's config/
// (kustomize) has `control-plane DoesNotExist` there instead; the chart's
// selector is what users installing with Helm get, so the offline rendering
// carries it.
var chartPodSelector = map[string]any{"matchExpressions": []any{
	map[string]any{"key": "control-plane", "operator": "NotIn", "values": []any{"openkruise"}},
	kubeSystemExpr,
}}

// chartKubeSystemSelector is what the same template gives the
// delete-protection webhooks (vbuiltin*, vnamespace, vcustomresourcedefinition).
var chartKubeSystemSelector = map[string]any{"matchExpressions": []any{kubeSystemExpr}}

var kubeSystemExpr = map[string]any{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": []any{"kube-system"}}

var podWebhooks = map[string]bool{"mpod.kb.io": true, "vpod.kb.io": true, "vpodeviction.kb.io": true}
var protectionWebhooks = map[string]bool{"vbuiltindeployment.kb.io": true, "vbuiltinreplicaset.kb.io": true,
	"vbuiltinstatefulset.kb.io": true, "vnamespace.kb.io": true, "vcustomresourcedefinition.kb.io": true}

// AsChart turns the module's config/default rendering into what chart
// kruise 1.5.2 installs with installation.createNamespace=false and
// manager.replicas=1, in the parts that matter here:
//   - no kruise-system Namespace (the user created it beforehand);
//   - the chart's webhook namespaceSelectors (above);
//   - the chart's image openkruise/kruise-manager:<version> for the manager and
//     the daemon, IfNotPresent (offline images are loaded, never pulled);
//   - the chart's defaults where config/ is a development setup: no
//     AllAlpha feature gates, KUBE_CACHE_MUTATION_DETECTOR=false, manager
//     resources 100m/256Mi requests, 200m/512Mi limits.
func AsChart(version string) func(map[string]string) (map[string]string, error) {
	return func(f map[string]string) (map[string]string, error) {
		docs, err := parse(f["install.yaml"])
		if err != nil {
			return nil, err
		}
		var out []map[string]any
		for _, d := range docs {
			kind, name := str(d, "kind"), str(d["metadata"], "name")
			switch {
			case kind == "Namespace" && name == namespace:
				continue
			case kind == "MutatingWebhookConfiguration" || kind == "ValidatingWebhookConfiguration":
				for _, wh := range list(d, "webhooks") {
					w := wh.(map[string]any)
					if podWebhooks[str(w, "name")] {
						w["namespaceSelector"] = chartPodSelector
					} else if protectionWebhooks[str(w, "name")] {
						w["namespaceSelector"] = chartKubeSystemSelector
					}
				}
			case kind == "Deployment" || kind == "DaemonSet":
				for _, c := range list(d["spec"].(map[string]any)["template"].(map[string]any)["spec"], "containers") {
					chartContainer(c.(map[string]any), version, kind == "Deployment")
				}
			}
			out = append(out, d)
		}
		m, err := render(out)
		return map[string]string{"install.yaml": m}, err
	}
}

func chartContainer(c map[string]any, version string, manager bool) {
	c["image"] = "openkruise/kruise-manager:" + version
	c["imagePullPolicy"] = "IfNotPresent"
	var args []any
	for _, a := range list(c, "args") {
		if !strings.HasPrefix(fmt.Sprint(a), "--feature-gates=") {
			args = append(args, a)
		}
	}
	c["args"] = args
	for _, e := range list(c, "env") {
		if e := e.(map[string]any); e["name"] == "KUBE_CACHE_MUTATION_DETECTOR" {
			e["value"] = "false"
		}
	}
	if manager {
		c["resources"] = map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "256Mi"},
			"limits": map[string]any{"cpu": "200m", "memory": "512Mi"}}
	}
}

// Split orders an install the way the bug needs it, whatever the source:
// "install.yaml" is everything but the webhook configurations, with the
// manager Deployment at 0 replicas; "webhooks.yaml" the two configurations.
// Applying them in that order and then scaling the manager to 1 makes the
// first manager Pod meet the webhook every time (the race users lose).
func Split(f map[string]string) (map[string]string, error) {
	docs, err := parse(f["install.yaml"])
	if err != nil {
		return nil, err
	}
	var install, webhooks []map[string]any
	for _, d := range docs {
		switch kind := str(d, "kind"); {
		case kind == "MutatingWebhookConfiguration" || kind == "ValidatingWebhookConfiguration":
			webhooks = append(webhooks, d)
		case kind == "Deployment" && str(d["metadata"], "name") == manager:
			d["spec"].(map[string]any)["replicas"] = 0
			install = append(install, d)
		default:
			install = append(install, d)
		}
	}
	if len(webhooks) != 2 {
		return nil, fmt.Errorf("split the openkruise install: %d webhook configurations, want 2", len(webhooks))
	}
	i, err := render(install)
	if err != nil {
		return nil, err
	}
	w, err := render(webhooks)
	if err != nil {
		return nil, err
	}
	return map[string]string{"install.yaml": i, "webhooks.yaml": w}, nil
}

// Namespace is kruise-system as the user creates it beforehand.
func Namespace(labelled bool) string {
	m := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + namespace + "\n"
	if labelled {
		k, v, _ := strings.Cut(label, "=")
		m += "  labels:\n    " + k + ": " + v + "\n"
	}
	return m
}

// ProbePod is a Pod a server-side dry run creates in ns: admitted or not
// tells whether that namespace can still create Pods.
func ProbePod(ns string) fixture.Files {
	return fixture.Chart("probes", map[string]any{"pod": map[string]any{
		"name": "gitops-conformance-probe", "namespace": ns, "container": "pause", "image": "registry.k8s.io/pause:3.10"}})
}

func parse(manifest string) ([]map[string]any, error) {
	var docs []map[string]any
	for _, raw := range strings.Split("\n"+manifest, "\n---") {
		if strings.TrimSpace(strings.TrimPrefix(raw, "\n")) == "" {
			continue
		}
		var d map[string]any
		if err := yaml.Unmarshal([]byte(raw), &d); err != nil {
			return nil, fmt.Errorf("parse manifest: %w", err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("parse manifest: no documents")
	}
	return docs, nil
}

func render(docs []map[string]any) (string, error) {
	var b strings.Builder
	for _, d := range docs {
		y, err := yaml.Marshal(d)
		if err != nil {
			return "", err
		}
		b.WriteString("---\n")
		b.Write(y)
	}
	return b.String(), nil
}

func str(m any, key string) string {
	mm, _ := m.(map[string]any)
	s, _ := mm[key].(string)
	return s
}

func list(m any, key string) []any {
	mm, _ := m.(map[string]any)
	l, _ := mm[key].([]any)
	return l
}
