package env

import (
	"context"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/shell"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Values produces Helm values when the step runs (e.g. generated credentials).
type Values func(ctx context.Context) (map[string]any, error)

// HelmInstall installs a chart release with the Helm SDK and waits for it;
// the cell uninstalls it at its end. Only the value keys are logged, never
// the values (they may hold credentials).
func HelmInstall(r helm.Release, values Values) features.Func {
	return assert.Step("helm install "+r.Namespace+"/"+r.Name, func(ctx context.Context) error {
		run, c := From(ctx), CellFrom(ctx)
		v, err := values(ctx)
		if err != nil {
			return err
		}
		r.Values = v
		if r.Timeout == 0 {
			r.Timeout = assert.Intervals.Install
		}
		c.Step("helm install %s %s %s into %s, values keys %v", r.Name, r.Chart, r.Version, r.Namespace, keys(v))
		c.Defer("helm uninstall "+r.Name, func(context.Context) error {
			return helm.Uninstall(run.Kubectl.Kubeconfig, r.Namespace, r.Name, io.Discard)
		})
		observe(ctx, "installed %s %s from %s with the Helm SDK", r.Name, r.Version, r.Chart)
		return helm.Install(ctx, run.Kubectl.Kubeconfig, r, run.Out)
	})
}

func keys(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

// ApplyURL applies a published manifest (online releases); the cell deletes it at its end.
func ApplyURL(what, url string) features.Func {
	return assert.Step("apply "+what+" from "+url, func(ctx context.Context) error {
		data, err := sources.Get(ctx, url)
		if err != nil {
			return err
		}
		r, c := From(ctx), CellFrom(ctx)
		manifest := string(data)
		c.Step("apply %s from %s (%d bytes)", what, url, len(data))
		c.Defer("delete "+what, func(ctx context.Context) error {
			_, err := r.Kubectl.Run(ctx, "delete", "--ignore-not-found", "--wait=false", "-f", url)
			return err
		})
		observe(ctx, "applied %s from %s", what, url)
		return r.Kubectl.Apply(ctx, manifest)
	})
}

// RolledOut holds when every Deployment in namespace is Available.
func RolledOut(namespace string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := From(ctx).Kubectl.Run(ctx, "-n", namespace, "get", "deploy", "-o",
			`jsonpath={range .items[*]}{.metadata.name}={.status.availableReplicas}/{.spec.replicas} {end}`)
		if err != nil {
			return false, shell.LastLine(err.Error()), nil
		}
		ready := out != ""
		for _, f := range strings.Fields(out) {
			name, counts, _ := strings.Cut(f, "=")
			have, want, _ := strings.Cut(counts, "/")
			if have != want || name == "" {
				ready = false
			}
		}
		return ready, "deployments " + out, nil
	}
}
