package env

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Apply applies a manifest server-side; the cell deletes it at its end.
func Apply(what, manifest string) step.Step {
	return act("apply "+what, func(ctx context.Context) error {
		if !applyStep(ctx, what, manifest) {
			return nil
		}
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("apply %s:\n%s", what, manifest)
		c.Defer("delete "+what, func(ctx context.Context) error { return deleteManifest(ctx, manifest) })
		return r.Kubectl.Apply(ctx, manifest)
	})
}

// ApplyFiles applies produced manifests server-side, in the files' name
// order; the cell deletes them at its end (cleanups run in reverse order of
// registration, so what is applied last goes first).
func ApplyFiles(what string, files fixture.Files) step.Step {
	return act("apply "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		manifest, err := fixture.Manifest(ctx, files)
		if err != nil {
			return err
		}
		if !applyStep(ctx, what, manifest) {
			return nil
		}
		c.WriteEvidence("applied-"+fileName(what)+".yaml", manifest)
		c.Step("apply %s: %d bytes (applied-%s.yaml)", what, len(manifest), fileName(what))
		c.Defer("delete "+what, func(ctx context.Context) error { return deleteManifest(ctx, manifest) })
		return r.Kubectl.Apply(ctx, manifest)
	})
}

// ApplyNamespace makes the namespace name, with labels (key=value) if
// given, as a user does beforehand (the probes fixture chart's Namespace);
// the cell deletes it at its end.
func ApplyNamespace(name string, labels ...string) step.Step {
	return ApplyFiles("namespace "+name, fixture.Namespace(name, labels...))
}

// deleteManifest deletes what a cell applied, waiting for it to go. An object
// of a kind the cluster no longer serves went with its CRD (a CloneSet once
// kruise's CRDs went): kubectl names it and goes on with the others, which is
// no failure of the cleanup.
func deleteManifest(ctx context.Context, manifest string) error {
	r := lifecycle.From(ctx)
	out, err := shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader(manifest),
		Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "delete", "--ignore-not-found", "--wait=true", "--timeout=2m", "-f", "-"}})
	if err != nil && onlyUnservedKinds(out) {
		return nil
	}
	return err
}

// onlyUnservedKinds holds when every error kubectl printed names a kind the
// cluster does not serve ("resource mapping not found ... no matches for
// kind", then "ensure CRDs are installed first").
func onlyUnservedKinds(out string) bool {
	seen := false
	for _, line := range strings.Split(out, "\n") {
		switch line = strings.TrimSpace(line); {
		case strings.Contains(line, "no matches for kind"):
			seen = true
		case strings.HasPrefix(line, "error"), strings.HasPrefix(line, "Error"):
			return false
		}
	}
	return seen
}

// DeleteFiles deletes the objects of produced manifests (last first),
// without waiting for them to go: what happens next is for the checks to see.
func DeleteFiles(what string, files fixture.Files) step.Step {
	return act("delete "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		manifest, err := fixture.Manifest(ctx, files)
		if err != nil {
			return err
		}
		f := manifestFile(ctx, "delete "+what)
		if !do(ctx, "delete "+what, "kubectl delete --ignore-not-found --wait=false -f \"$BUNDLE/"+f+"\"", map[string]string{f: manifest}) {
			return nil
		}
		c.Step("delete %s (%d bytes)", what, len(manifest))
		_, err = shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader(manifest),
			Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "delete", "--ignore-not-found", "--wait=false", "-f", "-"}})
		return err
	})
}

func fileName(what string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, strings.ToLower(what))
}

// Delete deletes an object; extra kubectl arguments choose the propagation
// (e.g. "--cascade=foreground").
func Delete(obj Object, args ...string) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return act("delete "+lifecycle.Ref(kind, namespace, name), func(ctx context.Context) error {
		a := append([]string{"delete", kind, name, "--wait=false"}, args...)
		if namespace != "" {
			a = append(a, "-n", namespace)
		}
		if !kubectlStep(ctx, "delete "+lifecycle.Ref(kind, namespace, name), a...) {
			return nil
		}
		lifecycle.CellFrom(ctx).Step("delete %s %v", lifecycle.Ref(kind, namespace, name), args)
		_, err := lifecycle.From(ctx).Kubectl.Run(ctx, a...)
		return err
	})
}

// Watch adds an object to the cell's evidence.
func Watch(obj Object) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return lookInRun("watch "+lifecycle.Ref(kind, namespace, name), func(ctx context.Context) error {
		lifecycle.CellFrom(ctx).Watch(kind, namespace, name)
		return nil
	})
}

// Scale sets a workload's replicas (kubectl scale), the way an operator does.
func Scale(obj Object, replicas int) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return act(fmt.Sprintf("scale %s to %d", lifecycle.Ref(kind, namespace, name), replicas), func(ctx context.Context) error {
		if !kubectlStep(ctx, fmt.Sprintf("scale %s to %d", lifecycle.Ref(kind, namespace, name), replicas),
			"scale", kind, name, "-n", namespace, fmt.Sprintf("--replicas=%d", replicas)) {
			return nil
		}
		c := lifecycle.CellFrom(ctx)
		c.Step("scale %s to %d", lifecycle.Ref(kind, namespace, name), replicas)
		c.Watch(kind, namespace, name)
		_, err := lifecycle.From(ctx).Kubectl.Run(ctx, "scale", kind, name, "-n", namespace, fmt.Sprintf("--replicas=%d", replicas))
		return err
	})
}

// ScaleAtEnd sets a workload's replicas back at the cell's end, whatever
// happened in it: a step that scales a shared workload (kube-system's) leaves
// the next cell the cluster as it found it.
func ScaleAtEnd(obj Object, replicas int) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	ref := lifecycle.Ref(kind, namespace, name)
	return actInRun(fmt.Sprintf("at the end, scale %s to %d", ref, replicas), func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("at the end, scale %s to %d", ref, replicas)
		c.Defer(fmt.Sprintf("scale %s to %d", ref, replicas), func(ctx context.Context) error {
			_, err := r.Kubectl.Run(ctx, "scale", kind, name, "-n", namespace, fmt.Sprintf("--replicas=%d", replicas))
			return err
		})
		return nil
	})
}

// Label sets labels (key=value, or key- to remove) on an object (kubectl label --overwrite).
func Label(obj Object, labels ...string) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return act(fmt.Sprintf("label %s %s", lifecycle.Ref(kind, namespace, name), strings.Join(labels, " ")), func(ctx context.Context) error {
		args := append([]string{"label", "--overwrite", kind, name}, labels...)
		if namespace != "" {
			args = append(args, "-n", namespace)
		}
		if !kubectlStep(ctx, "label "+lifecycle.Ref(kind, namespace, name)+" "+strings.Join(labels, " "), args...) {
			return nil
		}
		c := lifecycle.CellFrom(ctx)
		c.Step("label %s %v", lifecycle.Ref(kind, namespace, name), labels)
		c.Watch(kind, namespace, name)
		_, err := lifecycle.From(ctx).Kubectl.Run(ctx, args...)
		return err
	})
}

// OwnedBy adds an ownerReference (controller: false) from an object to a
// cluster-scoped owner, read live for its uid: what a controller does to
// the objects it manages (Knative's webhook to its configurations, with their
// Namespace as the owner). A kubectl patch, as the evidence quotes it.
func OwnedBy(obj Object, ownerAPIVersion string, owner Object) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	ownerKind, ownerName := owner.KindOf(), owner.Name
	what := fmt.Sprintf("%s owned by %s %s", lifecycle.Ref(kind, namespace, name), ownerKind, ownerName)
	return act(what, func(ctx context.Context) error {
		if !call(ctx, what, "owned_by", kind, namespace, name, ownerAPIVersion, ownerKind, ownerName) {
			return nil
		}
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		owner, err := r.Kube.Get(ctx, ownerKind, "", ownerName)
		if err != nil {
			return err
		}
		ref, _ := json.Marshal([]map[string]any{{"apiVersion": ownerAPIVersion, "kind": ownerKind, "name": ownerName,
			"uid": string(owner.GetUID()), "controller": false}})
		args := []string{"patch", kind, name, "--type=merge", "-p", `{"metadata":{"ownerReferences":` + string(ref) + `}}`}
		if namespace != "" {
			args = append(args, "-n", namespace)
		}
		c.Step("%s: kubectl %s", what, strings.Join(args, " "))
		c.Watch(kind, namespace, name)
		_, err = r.Kubectl.Run(ctx, args...)
		return err
	})
}

// DeleteAtEnd registers a cleanup that deletes, when the cell ends, every
// object of kinds (comma-separated, as kubectl takes them) matching the label
// selector: for what a component leaves behind outside its Application
// (orphans, CRDs). Cleanups run in reverse order, so a DeleteAtEnd registered
// first runs last, after the Application and the namespaces are gone.
func DeleteAtEnd(what string, sel Selection) step.Step {
	kinds, selector := sel.Kinds, sel.Labels
	return actInRun("at the end, delete "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("at the end, delete %s (%s -l %s)", what, kinds, selector)
		c.Defer("delete "+what, func(ctx context.Context) error {
			out, err := r.Kubectl.Run(ctx, "delete", kinds, "-l", selector, "--ignore-not-found", "--wait=true", "--timeout=2m")
			if out = strings.TrimSpace(out); out != "" {
				r.Logf("cleanup %s: %s", what, strings.ReplaceAll(out, "\n", "; "))
			}
			return err
		})
		return nil
	})
}

// ReleaseAtEnd registers a cleanup that removes the finalizers from every
// object, in namespace, of the CRDs selected by crdSelector, and deletes the
// namespace's pods without grace. For resources whose controller went with
// their Application: without it their namespace stays Terminating for
// minutes. Registered after the namespace, it runs before its deletion.
func ReleaseAtEnd(what, crdSelector, namespace string) step.Step {
	return releaseAtEnd(what, "CRDs "+crdSelector, namespace, func(ctx context.Context, r *lifecycle.Run) ([]string, error) {
		crds, err := r.Kubectl.Run(ctx, "get", "customresourcedefinitions", "-l", crdSelector, "-o", "name")
		if err != nil {
			return nil, err
		}
		var names []string
		for _, crd := range strings.Fields(crds) {
			names = append(names, strings.TrimPrefix(crd, "customresourcedefinition.apiextensions.k8s.io/"))
		}
		return names, nil
	})
}

// ReleaseCRDsAtEnd is ReleaseAtEnd for the CRDs crds names (plural.group)
// when the cleanup runs: a chart's own, known once it is rendered.
func ReleaseCRDsAtEnd(what string, crds func() []string, namespace string) step.Step {
	return releaseAtEnd(what, "the chart's CRDs", namespace, func(context.Context, *lifecycle.Run) ([]string, error) { return crds(), nil })
}

func releaseAtEnd(what, which, namespace string, crds func(context.Context, *lifecycle.Run) ([]string, error)) step.Step {
	return actInRun("at the end, release "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("at the end, remove finalizers from %s in %s (%s)", what, namespace, which)
		c.Defer("release "+what, func(ctx context.Context) error {
			kinds, err := crds(ctx, r)
			if err != nil {
				return err
			}
			var released []string
			for _, kind := range kinds {
				objs, err := r.Kubectl.Run(ctx, "get", kind, "-n", namespace, "-o", "name", "--ignore-not-found")
				if err != nil {
					continue // a CRD already gone
				}
				for _, o := range strings.Fields(objs) {
					if _, err := r.Kubectl.Run(ctx, "patch", o, "-n", namespace, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`); err == nil {
						released = append(released, o)
					}
				}
			}
			// pods that outlive their controllers can hold the namespace for their
			// whole grace period (Knative's activator: 600 s); cleanup does not wait
			if _, err := r.Kubectl.Run(ctx, "delete", "pods", "--all", "-n", namespace, "--grace-period=0", "--force", "--wait=false"); err != nil {
				return err
			}
			r.Logf("cleanup %s: finalizers removed from %d object(s); pods in %s deleted without grace", what, len(released), namespace)
			return nil
		})
		return nil
	})
}

// DeleteCRDsAtEnd registers a cleanup that deletes, when the cell ends, the
// CRDs that serve the kinds kinds() names (kind.group, asked then): those
// something of the cell made that no manifest of it names (a hook Job's).
func DeleteCRDsAtEnd(what string, kinds func() []string) step.Step {
	return actInRun("at the end, delete "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("at the end, delete %s", what)
		c.Defer("delete "+what, func(ctx context.Context) error {
			for _, kind := range kinds() {
				gvr, _, err := r.Kube.Resource(kind)
				if err != nil {
					continue // not served: no CRD serves it
				}
				crd := gvr.Resource + "." + gvr.Group
				if _, err := r.Kubectl.Run(ctx, "delete", "customresourcedefinition", crd, "--ignore-not-found", "--wait=true", "--timeout=2m"); err != nil {
					return err
				}
				r.Logf("cleanup %s: customresourcedefinition %s deleted", what, crd)
			}
			return nil
		})
		return nil
	})
}

// DeleteObjectAtEnd registers a cleanup that deletes one object and waits
// for it to go, when the cell ends: registered after what would otherwise
// take away its finalizer's controller (a release, an Application), it runs
// before that goes. why is recorded.
func DeleteObjectAtEnd(obj Object, why string) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	ref := lifecycle.Ref(kind, namespace, name)
	return actInRun("at the end, delete "+ref, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("at the end, delete %s (%s)", ref, why)
		c.Defer("delete "+ref, func(ctx context.Context) error {
			args := []string{"delete", kind, name, "--ignore-not-found", "--wait=true", "--timeout=2m"}
			if namespace != "" {
				args = append(args, "-n", namespace)
			}
			_, err := r.Kubectl.Run(ctx, args...)
			return err
		})
		return nil
	})
}

// DeleteListedAtEnd registers a cleanup that deletes, when the cell ends,
// the objects names lists then (kind/name, as kubectl takes them): for what
// is known only at the end (configurations a controller registered at run
// time). Taken again, the cleanup moves to run first of those registered.
func DeleteListedAtEnd(what string, names func(ctx context.Context) ([]string, error)) step.Step {
	return actInRun("at the end, delete "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("at the end, delete %s", what)
		c.Drop("delete " + what)
		c.Defer("delete "+what, func(ctx context.Context) error {
			objs, err := names(ctx)
			if err != nil || len(objs) == 0 {
				return err
			}
			out, err := r.Kubectl.Run(ctx, append([]string{"delete", "--ignore-not-found", "--wait=true", "--timeout=2m"}, objs...)...)
			if out = strings.TrimSpace(out); out != "" {
				r.Logf("cleanup: %s", strings.ReplaceAll(out, "\n", "; "))
			}
			return err
		})
		return nil
	})
}
