package env

import (
	"context"
	"slices"
	"strings"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
)

// Deletion modes of DeleteApp: the finalizer that decides what happens to the
// Application's resources.
const (
	Foreground = argocd.Foreground
	Background = argocd.Background
	NonCascade = argocd.NonCascade
)

// DeleteApp deletes an Application the way a user does, with the deletion
// mode's finalizer (Foreground, Background: cascading; or NonCascade), without waiting: whether it goes is for AppGone to tell.
// The cell's deletion of it (registered by CreateApp) becomes one that
// tolerates the Application being gone already.
func DeleteApp(name string, mode argocd.Deletion) features.Func {
	what := "delete application " + name + " (" + string(mode) + ")"
	return assert.Step(what, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		c.Step("%s", what)
		c.drop("delete application " + name)
		c.Defer("delete application "+name+" if still there", func(ctx context.Context) error {
			if gone, _, err := r.Apps.Gone(name)(ctx); err != nil || gone {
				return err
			}
			if err := r.Apps.Delete(ctx, name, mode); err != nil {
				return err
			}
			return assert.Eventually(ctx, "application "+name+" gone", assert.Intervals.Install, r.Apps.Gone(name))
		})
		return r.Apps.Delete(ctx, name, mode)
	})
}

// AppGone holds when the Application no longer exists.
func AppGone(name string) assert.Check {
	return func(ctx context.Context) (bool, string, error) { return From(ctx).Apps.Gone(name)(ctx) }
}

// drop removes the pending cleanups named what (their work was done by a step).
func (c *Cell) drop(what string) {
	c.cleanups = slices.DeleteFunc(c.cleanups, func(cl cleanup) bool { return cl.what == what })
}

// DeleteAtEnd registers a cleanup that deletes, when the cell ends, every
// object of kinds (comma-separated, as kubectl takes them) matching the label
// selector: for what a component leaves behind outside its Application
// (orphans, CRDs). Cleanups run in reverse order, so a DeleteAtEnd registered
// first runs last, after the Application and the namespaces are gone.
func DeleteAtEnd(what, kinds, selector string) features.Func {
	return assert.Step("at the end, delete "+what, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
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
func ReleaseAtEnd(what, crdSelector, namespace string) features.Func {
	return assert.Step("at the end, release "+what, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		c.Step("at the end, remove finalizers from %s in %s (CRDs %s)", what, namespace, crdSelector)
		c.Defer("release "+what, func(ctx context.Context) error {
			crds, err := r.Kubectl.Run(ctx, "get", "customresourcedefinitions", "-l", crdSelector, "-o", "name")
			if err != nil {
				return err
			}
			var released []string
			for _, crd := range strings.Fields(crds) {
				kind := strings.TrimPrefix(crd, "customresourcedefinition.apiextensions.k8s.io/")
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
