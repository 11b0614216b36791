package env

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// do records a step that changes the cluster, in repro.sh's terms (bash
// over the script's helpers, files by their path in the bundle), and
// reports whether to carry it out: not while a branch the cell did not take
// is written down.
func do(ctx context.Context, what, shell string, files map[string]string) bool {
	return repro.Record(ctx, repro.Step{Kind: repro.Do, What: what, Shell: shell, Files: files})
}

// manifestFile is a new path in the bundle for a manifest a step applies.
func manifestFile(ctx context.Context, what string) string {
	return repro.Dir(ctx, "manifests/"+fileName(what)) + ".yaml"
}

// applyStep records the server-side apply of a manifest (args: e.g. -n ns).
func applyStep(ctx context.Context, what, manifest string, args ...string) bool {
	f := manifestFile(ctx, what)
	shell := "apply " + repro.Quote(f)
	for _, a := range args {
		shell += " " + repro.Quote(a)
	}
	return do(ctx, "apply "+what, shell, map[string]string{f: manifest})
}

// kubectlStep records a kubectl command as a user types it.
func kubectlStep(ctx context.Context, what string, args ...string) bool {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = repro.Quote(a)
	}
	return do(ctx, what, "kubectl "+strings.Join(q, " "), nil)
}

// call records a call of one of repro.sh's helpers (see pkg/repro).
func call(ctx context.Context, what, helper string, args ...string) bool {
	q := []string{helper}
	for _, a := range args {
		q = append(q, repro.Quote(a))
	}
	return do(ctx, what, strings.Join(q, " "), nil)
}

// toYAML is v as a YAML document, for the bundle.
func toYAML(v any) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Sprintf("# %v\n", err)
	}
	return string(data)
}

// imagesStep records the images a step gave the cluster: repro.sh's
// REPRO_LOAD_IMAGES=1 kind-loads them, else the node pulls them.
func imagesStep(ctx context.Context, what string, imgs []string) {
	repro.Record(ctx, repro.Step{Kind: repro.Do, What: "images for " + what, Images: imgs,
		Note: "the suite built these offline under the upstream names; the node pulls them (REPRO_LOAD_IMAGES=1: kind load from the local Docker)"})
}

// applySecretStep records the apply of a manifest holding secrets: only
// with every secret value in it made by the script (repro.Generate);
// otherwise the script stops there, saying so.
func applySecretStep(ctx context.Context, what, manifest string) bool {
	f := manifestFile(ctx, what)
	step := repro.Step{Kind: repro.Do, What: "apply " + what, Shell: "apply " + repro.Quote(f), Files: map[string]string{f: manifest}}
	if !repro.Redacted(ctx, manifest) {
		step.Shell, step.Files = "error "+repro.Quote("the cell applied "+what+", a secret this bundle cannot hold and the script cannot make"), nil
	}
	return repro.Record(ctx, step)
}

// helmStep records a chart release as the script installs it: the chart
// rendered client-side with the release's values (as helm template; CRDs of
// crds/ first), applied with kubectl into the release's namespace, then,
// when the release waited, each workload's rollout. Hooks are not run.
func helmStep(ctx context.Context, rel helm.Release, chart map[string]string) (bool, error) {
	manifest, err := helm.Render(ctx, rel)
	if err != nil {
		return false, err
	}
	var meta struct{ Name, Version string }
	_ = yaml.Unmarshal([]byte(chart["Chart.yaml"]), &meta)
	var crds []string
	for _, p := range slices.Sorted(maps.Keys(chart)) {
		if strings.HasPrefix(p, "crds/") && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			crds = append(crds, "---\n"+strings.TrimSpace(chart[p])+"\n")
		}
	}
	dir := repro.Dir(ctx, "charts/"+rel.Name)
	var shell []string
	if !rel.ExistingNamespace {
		shell = append(shell, "kubectl create namespace "+repro.Quote(rel.Namespace))
	}
	shell = append(shell, "apply_in "+repro.Quote(rel.Namespace)+" "+repro.Quote(dir+"/rendered.yaml"))
	if !rel.NoWait {
		shell = append(shell, fmt.Sprintf("wait_rollout %s %d", repro.Quote(rel.Namespace), int(rel.Timeout.Seconds())))
	}
	return repro.Record(ctx, repro.Step{Kind: repro.Do, What: "helm install " + rel.Namespace + "/" + rel.Name, Shell: strings.Join(shell, "\n"),
		Files: map[string]string{dir + "/values.yaml": toYAML(repro.RedactValues(ctx, rel.Values)), dir + "/rendered.yaml": strings.Join(crds, "") + manifest},
		Note: fmt.Sprintf("chart %s %s rendered with values.yaml as helm template does and applied with kubectl (helm install %s <chart> -n %s -f values.yaml, wait %v, --create-namespace %v, does the same; chart hooks are not run)",
			meta.Name, meta.Version, rel.Name, rel.Namespace, !rel.NoWait, !rel.ExistingNamespace)}), nil
}
