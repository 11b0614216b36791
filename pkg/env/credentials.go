package env

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// HelmInstallChartWith installs a chart's files as release rel through the
// Helm SDK, with values produced when the step runs merged over rel.Values;
// the cell uninstalls it at its end. Only the values' key paths are
// recorded, never the values (they hold credentials).
func HelmInstallChartWith(rel helm.Release, chart fixture.Files, values Values) step.Step {
	return act("helm install "+rel.Namespace+"/"+rel.Name, func(ctx context.Context) error {
		v, err := values(ctx)
		if err != nil {
			return err
		}
		rel.Values = merge(rel.Values, v)
		return installChart(ctx, rel, chart, func(rel helm.Release) {
			lifecycle.Note(ctx, "helm install %s into %s (Helm SDK, chart from its files; wait %v, --create-namespace %v), values set: %s",
				rel.Name, rel.Namespace, !rel.NoWait, !rel.ExistingNamespace, strings.Join(paths("", rel.Values), " "))
		})
	})
}

// merge is b over a, maps merged key by key (as Helm merges value files).
func merge(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = merge(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// paths are the dotted key paths of the leaves of values, sorted.
func paths(prefix string, values map[string]any) []string {
	var p []string
	for k, v := range values {
		if m, ok := v.(map[string]any); ok && len(m) > 0 {
			p = append(p, paths(prefix+k+".", m)...)
			continue
		}
		p = append(p, prefix+k)
	}
	slices.Sort(p)
	return p
}

// ApplySecret applies manifests that hold secrets (a TLS key, a credential)
// server-side; only the objects' kinds and names are recorded, never their
// content. The cell deletes them at its end.
func ApplySecret(what string, files fixture.Files) step.Step {
	return act("apply "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		manifest, err := fixture.Manifest(ctx, files)
		if err != nil {
			return err
		}
		if !applySecretStep(ctx, what, manifest) {
			return nil
		}
		c.Step("apply %s (%d bytes, content not recorded)", what, len(manifest))
		c.Defer("delete "+what, func(ctx context.Context) error {
			_, err := shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader(manifest),
				Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "delete", "--ignore-not-found", "--wait=true", "--timeout=2m", "-f", "-"}})
			return err
		})
		return r.Kubectl.Apply(ctx, manifest)
	})
}

// CABundle produces a PEM CA bundle when the step runs.
type CABundle func(ctx context.Context) ([]byte, error)

// InjectCABundle does what cert-manager's cainjector does for a chart that
// relies on it: every webhook of the validating and mutating webhook
// configurations whose service lives in namespace and that has no caBundle
// gets ca. Which webhooks got it is recorded.
func InjectCABundle(namespace string, ca CABundle) step.Step {
	return act("inject the CA bundle into the webhooks served from "+namespace, func(ctx context.Context) error {
		r := lifecycle.From(ctx)
		pem, err := ca(ctx)
		if err != nil {
			return err
		}
		if !call(ctx, "inject the CA bundle into the webhooks served from "+namespace+" (what cert-manager's cainjector does)",
			"inject_ca_bundle", namespace, base64.StdEncoding.EncodeToString(pem)) {
			return nil
		}
		var injected, had []string
		for _, kind := range []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"} {
			out, err := r.Kubectl.Run(ctx, "get", kind, "-o", "json")
			if err != nil {
				return err
			}
			var list struct {
				Items []struct {
					Metadata struct{ Name string } `json:"metadata"`
					Webhooks []struct {
						Name         string `json:"name"`
						ClientConfig struct {
							CABundle string `json:"caBundle"`
							Service  *struct {
								Namespace string `json:"namespace"`
							} `json:"service"`
						} `json:"clientConfig"`
					} `json:"webhooks"`
				} `json:"items"`
			}
			if err := json.Unmarshal([]byte(out), &list); err != nil {
				return fmt.Errorf("read %s: %w", kind, err)
			}
			for _, cfg := range list.Items {
				var ops []map[string]any
				for i, w := range cfg.Webhooks {
					if w.ClientConfig.Service == nil || w.ClientConfig.Service.Namespace != namespace {
						continue
					}
					if w.ClientConfig.CABundle != "" {
						had = append(had, w.Name)
						continue
					}
					ops = append(ops, map[string]any{"op": "add", "path": fmt.Sprintf("/webhooks/%d/clientConfig/caBundle", i), "value": pem})
					injected = append(injected, w.Name)
				}
				if len(ops) == 0 {
					continue
				}
				patch, _ := json.Marshal(ops)
				if _, err := r.Kubectl.Run(ctx, "patch", kind, cfg.Metadata.Name, "--type=json", "-p", string(patch)); err != nil {
					return err
				}
			}
		}
		lifecycle.Note(ctx, "CA bundle: injected into %d webhook(s) served from %s %v; %d had one from the chart's values %v",
			len(injected), namespace, injected, len(had), had)
		return nil
	})
}
