package upgrade

import (
	"context"
	"fmt"
	"testing"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Marker is the object the check adds to an Application's source after the
// upgrade and then removes: a ConfigMap nothing reads, the same for a Helm
// chart, a directory and a kustomization (a chart's own objects cannot be
// annotated without editing its templates).
const Marker = "gitops-conformance-upgrade-check"

// PickUp bounds the wait for ArgoCD to act on a commit without being asked:
// the longest reconciliation a supported release documents, 180 s
// (argo-cd/v2@v2.14.11 docs/operator-manual/argocd-cm.yaml:333,339 180s and
// no jitter; argo-cd/v3@v3.5.1 the same file :341,348 120s and 60s of
// jitter), after the repo server's cache of the branch's revision expires
// (3 min, argo-cd/v3@v3.5.1 reposerver/cache/cache.go:70), and 30 s for the
// sync to start. No refresh is asked for: that is what a team's commit gets.
const PickUp = 6*time.Minute + 30*time.Second

// Pushed is what the Application showed of a commit pushed to its source
// after the upgrade: What the commit did, and whether ArgoCD acted on it
// within PickUp (Seen): showed it OutOfSync, or synced it by itself.
type Pushed struct {
	What string
	// Wanted is what the check waited for.
	Wanted string
	env.Observed
}

// automated says the Application syncs by itself (its policy kept).
func (k *cell) automated() bool {
	p := k.app.Spec.Spec.SyncPolicy
	return p != nil && p.IsAutomatedSyncEnabled()
}

// prunes says its auto-sync prunes what its source no longer holds.
func (k *cell) prunes() bool {
	p := k.app.Spec.Spec.SyncPolicy
	return k.automated() && p.Automated.GetPrune()
}

// markerNamespace is where the marker goes: the destination namespace, or
// default for an Application that names none.
func (k *cell) markerNamespace() string {
	if ns := k.app.Namespace(); ns != "" {
		return ns
	}
	return "default"
}

// mark records now into dst: when what came before it ended.
func (k *cell) mark(dst *time.Time) step.Step {
	return step.Act("note the time the upgrade was over", func(ctx context.Context, _ *testing.T, _ *envconf.Config) context.Context {
		*dst = time.Now()
		return ctx
	})
}

// push pushes a commit to the Application's source after the upgrade (the
// marker added; or, removal, the source as given again) and records into
// dst what ArgoCD did with it within PickUp, asked nothing: an Application
// that syncs by itself must sync it (and, pruning, prune the marker); one
// that does not must show it (OutOfSync, the marker to prune), and is then
// synced as its user would.
func (k *cell) push(dst *Pushed, removal bool) []step.Step {
	name, to, ns := k.app.Name(), k.to.String(), k.markerNamespace()
	ref := "configmap " + ns + "/" + Marker
	files, what := k.withMarker(), "a change: "+ref+" added"
	if removal {
		files, what = k.files, "a removal: "+ref+" taken out again"
	}
	dst.What = what
	var want assert.Check
	switch {
	case !removal && k.automated():
		dst.Wanted = "synced by ArgoCD itself"
		want = assert.All(check.ResourceIs(name, "ConfigMap", Marker, v1alpha1.SyncStatusCodeSynced, false), k.settled())
	case removal && k.prunes():
		dst.Wanted = "pruned by ArgoCD itself"
		want = assert.All(check.ResourceIs(name, "ConfigMap", Marker, "", false), k.settled())
	case removal:
		dst.Wanted = "shown to prune"
		want = check.ResourceIs(name, "ConfigMap", Marker, v1alpha1.SyncStatusCodeOutOfSync, true)
	default:
		dst.Wanted = "shown OutOfSync"
		want = check.ResourceIs(name, "ConfigMap", Marker, v1alpha1.SyncStatusCodeOutOfSync, false)
	}
	var steps []step.Step
	if !removal {
		steps = append(steps, env.DeleteObjectAtEnd(env.ConfigMap(ns, Marker), "the object make upgrade-check pushed after the upgrade"))
	}
	steps = append(steps,
		env.PushRepo(name, files).As("push "+what+" to application "+name+"'s source on "+to),
		env.ObserveInto("application "+name+": "+what+", "+dst.Wanted+" on "+to+" (no refresh asked for)", PickUp, want, &dst.Observed))
	switch {
	case removal && k.automated() && !k.prunes():
		// as the team whose auto-sync does not prune prunes by hand
		steps = append(steps, env.Delete(env.ConfigMap(ns, Marker)).As("delete "+ref+" (the auto-sync does not prune it: by hand, as its team does)"))
	case !k.automated():
		steps = append(steps, env.Unless(check.OperationPhaseIs(name, synccommon.OperationRunning), "sync on "+to+" ("+what+")",
			env.Sync(name, k.syncOptions()...).As("sync application "+name+" on "+to+" ("+what+")")),
			env.ObserveWithin("the sync on "+to+" ("+what+") completed, or held by a hook", assert.Intervals.Install, k.settled()))
	}
	return steps
}

// withMarker is the Application's source with the marker added.
func (k *cell) withMarker() fixture.Files {
	return func(ctx context.Context) (map[string]string, error) {
		doc := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  namespace: %s
  labels:
    app.kubernetes.io/part-of: gitops-conformance
data:
  why: a change pushed after the upgrade to %s (make upgrade-check); taken out by the next commit
`, Marker, k.markerNamespace(), k.to)
		files, err := k.files(ctx)
		if err != nil {
			return nil, err
		}
		src := k.app.Source
		src.Files = files
		return src.WithObject(Marker+".yaml", doc)
	}
}

// problem says, for the verdict, what ArgoCD did not do with a commit
// pushed after the upgrade: "" when it did what was wanted.
func (p Pushed) problem() string {
	if p.What == "" || p.Held {
		return ""
	}
	return fmt.Sprintf("%s, pushed after the upgrade, not %s within %s with no refresh asked for (%s)", p.What, p.Wanted, PickUp, p.Seen)
}
