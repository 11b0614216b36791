package env

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// RemoveFinalizer removes one finalizer from an object, as an operator would
// by hand (kubectl patch); an object that is gone or lacks it is left alone.
// What it found goes into the cell's observations.
func RemoveFinalizer(obj Object, finalizer string) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	what := "remove finalizer " + finalizer + " from " + lifecycle.Ref(kind, namespace, name)
	return act(what, func(ctx context.Context) error {
		if !call(ctx, what, "remove_finalizer", kind, namespace, name, finalizer) {
			return nil
		}
		return removeFinalizer(ctx, kind, namespace, name, finalizer)
	})
}

// ReleaseDeletionHooksAtEnd makes the cell's deletion of the Application
// (registered by CreateApp, or DeleteApp) remove ArgoCD's deletion-hook
// finalizers still on it, once the deletion started: a deletion its hooks
// hold (a guard that cannot pass, a hook its tracking label refuses) then
// ends, as a user who removes them by hand has it end. An Application
// without that deletion is an error of the scenario's.
func ReleaseDeletionHooksAtEnd(name string) step.Step {
	what := "ArgoCD's deletion hooks of application " + name
	return actInRun("at the end, release "+what, func(ctx context.Context) error { return releaseDeletionHooksAtEnd(ctx, name) })
}

func releaseDeletionHooksAtEnd(ctx context.Context, name string) error {
	c := lifecycle.CellFrom(ctx)
	if !c.Pending(deletionAtEnd(name)) {
		return fmt.Errorf("the cell does not delete application %s at its end (create it with CreateApp)", name)
	}
	c.Step("at the end, release ArgoCD's deletion hooks of application %s (once its deletion started, remove %s)", name, strings.Join(deletionHookFinalizers, ", "))
	c.ReleaseDeletionHooks(name)
	return nil
}

// deletionHookFinalizers are the finalizers by which ArgoCD holds an
// Application's deletion for its PreDelete and PostDelete hooks.
var deletionHookFinalizers = []string{
	argocd.PreDeleteFinalizer, argocd.PreDeleteFinalizer + "/cleanup",
	argocd.PostDeleteFinalizer, argocd.PostDeleteFinalizer + "/cleanup",
}

// releaseDeletionHooks removes the deletion-hook finalizers from application name.
func releaseDeletionHooks(ctx context.Context, name string) error {
	app := lifecycle.Application(name)
	for _, f := range deletionHookFinalizers {
		if err := removeFinalizer(ctx, app.Kind, app.Namespace, app.Name, f); err != nil {
			return err
		}
	}
	return nil
}

// TerminateOperationAtEnd ends, when the cell ends, the Application's
// operation if it is still running (as `argocd app terminate-op`), and
// waits for it to end: ArgoCD deletes no Application whose operation runs,
// and a hook that cannot run keeps one running for ever. Registered after
// the Application, it runs before its deletion.
func TerminateOperationAtEnd(name string) step.Step {
	what := "the running operation of application " + name
	return actInRun("at the end, terminate "+what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Step("at the end, terminate %s (argocd app terminate-op)", what)
		c.Defer("terminate "+what, func(ctx context.Context) error {
			running, err := r.Apps.TerminateOperation(ctx, name)
			if lifecycle.NotFound(err) || !running {
				return nil
			}
			if err != nil {
				return err
			}
			r.Logf("cleanup: %s terminated", what)
			return assert.Eventually(ctx, what+" ended", assert.Intervals.Sync, check.OperationEnded(name))
		})
		return nil
	})
}

// RemoveFinalizerAtEnd removes finalizer from the object, if it is there, when
// the cell ends: registered after the Application, it runs before the
// Application's deletion, which the finalizer would hold.
func RemoveFinalizerAtEnd(obj Object, finalizer string) step.Step {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	what := "finalizer " + finalizer + " of " + lifecycle.Ref(kind, namespace, name)
	return actInRun("at the end, remove "+what, func(ctx context.Context) error {
		c := lifecycle.CellFrom(ctx)
		c.Step("at the end, remove %s", what)
		c.Defer("remove "+what, func(ctx context.Context) error {
			return removeFinalizer(ctx, kind, namespace, name, finalizer)
		})
		return nil
	})
}

// removeFinalizer takes finalizer off the object by a JSON patch that tests
// the index it read first, so it never removes another one. A controller
// that changed the list in between (ArgoCD adds and drops its own while it
// deletes: run 20261128-043720's delete-false cell on v3.6.1) fails the
// test: the list is read again and the patch tried again, a few times.
func removeFinalizer(ctx context.Context, kind, namespace, name, finalizer string) error {
	var err error
	for attempt := 1; attempt <= 5; attempt++ {
		var done bool
		if done, err = removeFinalizerOnce(ctx, kind, namespace, name, finalizer); done || err == nil {
			return err
		}
		lifecycle.Note(ctx, "%s: the finalizers moved while %s was removed (attempt %d): %v", lifecycle.Ref(kind, namespace, name), finalizer, attempt, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// removeFinalizerOnce is one read and one patch; done is true when the
// answer is final (removed, not there, or a read that failed).
func removeFinalizerOnce(ctx context.Context, kind, namespace, name, finalizer string) (done bool, err error) {
	m, err := lifecycle.GetMeta(ctx, kind, namespace, name)
	if lifecycle.NotFound(err) {
		lifecycle.Note(ctx, "%s: not found, nothing to remove", lifecycle.Ref(kind, namespace, name))
		return true, nil
	}
	if err != nil {
		return true, err
	}
	i := slices.Index(m.Finalizers, finalizer)
	if i < 0 {
		lifecycle.Note(ctx, "%s: %s; no %s to remove", lifecycle.Ref(kind, namespace, name), m.Describe(), finalizer)
		return true, nil
	}
	// test-then-remove: the patch fails instead of removing another finalizer if the list moved
	patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, finalizer, i)
	args := []string{"patch", kind, name, "--type=json", "-p", patch}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	if _, err := lifecycle.From(ctx).Kubectl.Run(ctx, args...); err != nil {
		return false, err
	}
	lifecycle.Note(ctx, "%s: was %s; removed %s by hand (kubectl %s)", lifecycle.Ref(kind, namespace, name), m.Describe(), finalizer, strings.Join(args, " "))
	return true, nil
}
