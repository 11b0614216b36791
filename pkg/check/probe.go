package check

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// ProbeName names the objects a probe dry-runs.
const ProbeName = "gitops-conformance-probe"

// Probe is an object webhook w is called for, for a server-side dry run of
// its creation: a ConfigMap or a Pod (what its rules name, a ConfigMap for
// "*"), labelled so its objectSelector takes it, in a namespace its
// namespaceSelector takes as the namespace is labelled now (the one of the
// service it calls, else default). An error says why none can be made.
func Probe(ctx context.Context, w Webhook) (fixture.Files, error) {
	resource := probeResource(w.Rules)
	if resource == "" {
		return nil, errors.New("its rules take no CREATE of configmaps or pods")
	}
	labels, err := objectLabels(w)
	if err != nil {
		return nil, err
	}
	candidates := []string{"default"}
	if s := w.ClientConfig.Service; s != nil {
		candidates = []string{s.Namespace, "default"}
	}
	for _, ns := range candidates {
		o, err := Get(ctx, lifecycle.Namespace(ns))
		if lifecycle.NotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if takes, err := Selects(w.NamespaceSelector, o.GetLabels()); err != nil || !takes {
			continue
		}
		if resource == "pods" {
			return fixture.Chart("probes", map[string]any{"pod": map[string]any{
				"name": ProbeName, "namespace": ns, "labels": labels, "container": "pause", "image": "registry.k8s.io/pause:3.10"}}), nil
		}
		return fixture.Chart("probes", map[string]any{"configMap": map[string]any{
			"name": ProbeName, "namespace": ns, "labels": labels, "data": map[string]string{"probe": "true"}}}), nil
	}
	return nil, fmt.Errorf("its namespaceSelector %q takes none of %v", SelectorText(w.NamespaceSelector), candidates)
}

// probeResource is what a probe makes for rules: "configmaps" or "pods", ""
// when no rule takes a CREATE of either.
func probeResource(rules []WebhookRule) string {
	created := podResources(rules)
	for _, want := range []string{"configmaps", "pods"} {
		if slices.Contains(created, want) {
			return want
		}
	}
	return ""
}

// podResources are the core group's configmaps and pods, of those the
// rules take a CREATE of: "*", "*/*", the resource, or the resource with
// "/*" (the API server's matcher: a subresource of "*" matches the
// resource itself too).
func podResources(rules []WebhookRule) []string {
	var out []string
	for _, want := range []string{"configmaps", "pods"} {
		for _, r := range rules {
			if (slices.Contains(r.APIGroups, "") || slices.Contains(r.APIGroups, "*")) &&
				(slices.Contains(r.Operations, "CREATE") || slices.Contains(r.Operations, "*")) &&
				slices.ContainsFunc(r.Resources, func(res string) bool {
					return res == want || res == "*" || res == "*/*" || res == want+"/*"
				}) && !slices.Contains(out, want) {
				out = append(out, want)
			}
		}
	}
	return out
}

// objectLabels are labels the webhook's objectSelector takes: its
// matchLabels, and for each expression a value that satisfies it.
func objectLabels(w Webhook) (map[string]string, error) {
	labels := map[string]string{}
	sel := w.ObjectSelector
	for k, v := range sel.MatchLabels {
		labels[k] = v
	}
	for _, e := range sel.MatchExpressions {
		switch e.Operator {
		case "In":
			if len(e.Values) > 0 {
				labels[e.Key] = e.Values[0]
			}
		case "Exists":
			labels[e.Key] = "true"
		}
	}
	if takes, err := Selects(sel, labels); err != nil || !takes {
		return nil, fmt.Errorf("no labels its objectSelector %q takes", SelectorText(sel))
	}
	return labels, nil
}

// CreatesPods says whether a webhook of these rules is called for the
// creation of Pods (what a probe of it would be).
func CreatesPods(rules []WebhookRule) bool {
	return probeResource(rules) != "" && slices.Contains(podResources(rules), "pods")
}
