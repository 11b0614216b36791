package cell

import (
	"context"
	"fmt"
	"testing"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Marker is the object the check adds to an Application's source on FROM,
// removes after the upgrade and adds again, annotated: a ConfigMap nothing
// reads, the same for a Helm chart, a directory and a kustomization (a
// chart's own objects cannot be annotated without editing its templates).
const Marker = "gitops-conformance-upgrade-check"

// PickUp bounds the wait for ArgoCD to act on a commit without being asked:
// what a team on a release's defaults may wait, the longest reconciliation a
// supported release documents, 180 s (argo-cd/v2@v2.14.11
// docs/operator-manual/argocd-cm.yaml:333,339 180s and no jitter;
// argo-cd/v3@v3.5.1 the same file :341,348 120s and 60s of jitter), after
// the repo server's cache of the branch's revision expires (3 min,
// argo-cd/v3@v3.5.1 reposerver/cache/cache.go:70), and 30 s for the sync to
// start. The suite's installs set timeout.reconciliation to 15s
// (argocd.Config; the repo server takes its revision cache's expiry from
// the same key), so ArgoCD acts within a minute here (run 20261128-091714:
// 31 s on v2.14.11, 23 s and 29 s on v2.14.21); the bound only keeps a slow
// answer from reading as none.
const PickUp = 6*time.Minute + 30*time.Second

// commit is one of the commits the check pushes to the Application's source.
type commit int

const (
	added    commit = iota // on FROM: the marker added
	removed                // after the upgrade, before any sync on TO: the marker taken out
	changed                // then: the marker back, with an annotation (and CHANGE's patch)
	reverted               // with CHANGE: the patch taken out again
)

// Pushed is what the Application showed of a commit pushed to its source:
// What the commit did, and whether ArgoCD acted on it within PickUp as
// Wanted (showed it OutOfSync, or synced it by itself).
type Pushed struct {
	What   string
	Wanted string
	// Commit is the commit pushed: ArgoCD must have compared it (its sync
	// revision), not merely still show what it showed of an earlier one
	// (v3.2.9, run 20261128-081223: the marker "Synced" of the commit before
	// the removal it never compared)
	Commit string
	env.Observed
	// Left says, of a removal not acted on, where the object is: read
	// after the wait, for the verdict's words.
	Left string
	// Asked says what ArgoCD was asked after the push (refreshAsked).
	Asked string
}

// refreshAsked says what the check asks of ArgoCD after a push: nothing,
// or with WEBHOOK a refresh, as a git webhook makes ArgoCD's handler ask.
func (k *cell) refreshAsked() string {
	if k.spec.Webhook {
		return "a webhook's refresh asked for after the push"
	}
	return "no refresh asked for"
}

// pushed are the steps of a push to the Application's source: with WEBHOOK,
// the refresh a git webhook would bring after it.
func (k *cell) pushed(push step.Step) []step.Step {
	if k.spec.Webhook {
		return []step.Step{push, env.WebhookRefresh(k.app.Name()).As(push.Name() + ": then a git webhook's refresh of the application, as ArgoCD's handler asks")}
	}
	return []step.Step{push}
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

// push pushes a commit to the Application's source on a release and
// records into dst what ArgoCD did with it within PickUp, asked nothing: an
// Application that syncs by itself must sync it (and, pruning, prune the
// marker taken out); one that does not must show it (OutOfSync, the marker
// to prune), and is then synced as its user would.
func (k *cell) push(dst *Pushed, c commit, on string) []step.Step {
	name, ns := k.app.Name(), k.markerNamespace()
	ref := "configmap " + ns + "/" + Marker
	files := k.files
	switch c {
	case added:
		files, dst.What = k.withMarker(false, ""), "a change: "+ref+" added"
	case removed:
		dst.What = "a removal: " + ref + ", made on " + k.From.String() + ", taken out"
	case changed:
		files, dst.What = k.withMarker(true, ""), "a change: "+ref+" back, annotated"
		if p, ok := k.spec.Changes[name]; ok {
			files, dst.What = p.On(files), "a change: CHANGE's "+p.File+", and "+ref+" back, annotated"
		}
	case reverted:
		files, dst.What = k.withMarker(true, ""), "CHANGE's "+k.spec.Changes[name].File+" reverted"
	}
	var want assert.Check
	switch {
	case c != removed && k.automated():
		dst.Wanted = "synced by ArgoCD itself"
		want = assert.All(k.markerIs(v1alpha1.SyncStatusCodeSynced, false), k.settled())
	case c == removed && k.prunes():
		// gone from the cluster: an object ArgoCD no longer counts as the
		// Application's is not listed either, and left behind (3.0's orphans:
		// run 20261128-082325, v2.14.11 -> v3.5.1, "Skipping auto-sync:
		// application status is Synced" with the marker still there)
		dst.Wanted = "pruned by ArgoCD itself"
		want = assert.All(k.markerIs("", false), check.Missing(env.ConfigMap(ns, Marker)), k.settled())
	case c == removed:
		dst.Wanted = "shown to prune"
		want = k.markerIs(v1alpha1.SyncStatusCodeOutOfSync, true)
	default:
		dst.Wanted = "shown OutOfSync"
		want = k.markerIs(v1alpha1.SyncStatusCodeOutOfSync, false)
	}
	var steps []step.Step
	if c == added {
		steps = append(steps, env.DeleteObjectAtEnd(env.ConfigMap(ns, Marker), "the object make upgrade-check pushed"))
	}
	want = assert.All(check.ComparedAt(name, func() string { return dst.Commit }), want)
	dst.Asked = k.refreshAsked()
	steps = append(steps, k.pushed(env.PushRepoInto(name, files, &dst.Commit).As("push "+dst.What+" to application "+name+"'s source on "+on))...)
	steps = append(steps, env.ObserveInto("application "+name+": "+dst.What+", "+dst.Wanted+" on "+on+" ("+dst.Asked+")", PickUp, want, &dst.Observed))
	if c == removed {
		steps = append(steps, k.whereLeft(dst))
	}
	switch {
	case c == removed && k.automated() && !k.prunes():
		// as the team whose auto-sync does not prune prunes by hand
		steps = append(steps, env.Delete(env.ConfigMap(ns, Marker)).As("delete "+ref+" (the auto-sync does not prune it: by hand, as its team does)"))
	case !k.automated():
		steps = append(steps, env.Unless(check.OperationPhaseIs(name, synccommon.OperationRunning), "sync on "+on+" ("+dst.What+")",
			env.Sync(name, k.syncOptions()...).As("sync application "+name+" on "+on+" ("+dst.What+")")),
			env.ObserveWithin("the sync on "+on+" ("+dst.What+") completed, or held by a hook", assert.Intervals.Install, k.settled()))
	}
	return steps
}

// whereLeft reads, when a removal was not acted on, whether the marker is
// still in the cluster and whether the Application still lists it: one it
// lists no more but that stays is left behind (ArgoCD no longer counts it as
// the Application's: 3.0's orphans).
func (k *cell) whereLeft(dst *Pushed) step.Step {
	ref := env.ConfigMap(k.markerNamespace(), Marker)
	return appcell.Reads("where "+ref.String()+" is, if the removal was not acted on", func(ctx context.Context) error {
		if dst.Held {
			return nil
		}
		_, err := check.Get(ctx, ref)
		switch {
		case lifecycle.NotFound(err):
			dst.Left = "gone from the cluster"
			return nil
		case err != nil:
			dst.Left = "could not tell whether it is still in the cluster: " + err.Error()
			return nil
		}
		app, err := check.App(ctx, k.app.Name())
		if err != nil {
			dst.Left = "still in the cluster; could not tell whether the Application lists it: " + err.Error()
			return nil
		}
		if at := app.Status.Sync.Revision; at != dst.Commit {
			// the commit was never compared: what it lists is of an earlier one
			dst.Left = fmt.Sprintf("still in the cluster; the Application never compared the commit pushed (%s), it is compared at %s", text.Clip(dst.Commit, 12), text.Clip(at, 12))
			return nil
		}
		if r, ok := argocd.Listed(app, "ConfigMap", Marker); ok {
			dst.Left = fmt.Sprintf("still in the cluster, the Application lists it %s", r.Status)
			if r.RequiresPruning {
				dst.Left += ", to prune"
			}
			return nil
		}
		dst.Left = "still in the cluster, and the Application no longer lists it: left behind (ArgoCD does not count it as the Application's)"
		lifecycle.Note(ctx, "%s: %s", ref, dst.Left)
		return nil
	})
}

// markerIs holds when the Application lists the marker with sync status s
// ("" for not at all), prunable or not.
func (k *cell) markerIs(s v1alpha1.SyncStatusCode, prunable bool) assert.Check {
	return check.ResourceIs(k.app.Name(), "ConfigMap", Marker, s, prunable)
}

// withMarker is the Application's source with the marker added; annotated,
// with a harmless annotation of its own; with trial, its data naming a
// trial's commit (duringSync).
func (k *cell) withMarker(annotated bool, trial string) fixture.Files {
	return func(ctx context.Context) (map[string]string, error) {
		annotations := ""
		if annotated {
			annotations = "\n  annotations:\n    conformance.gitops.io/pushed: after the upgrade to " + k.To.String()
		}
		if trial != "" {
			trial = "\n  trial: " + trial
		}
		doc := fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  namespace: %s
  labels:
    app.kubernetes.io/part-of: gitops-conformance%s
data:
  why: make upgrade-check's commits to the source, %s -> %s%s
`, Marker, k.markerNamespace(), annotations, k.From, k.To, trial)
		files, err := k.files(ctx)
		if err != nil {
			return nil, err
		}
		src := k.app.Source
		src.Files = files
		return src.WithObject(Marker+".yaml", doc)
	}
}

// problem says, for the verdict, what ArgoCD did not do with a commit: ""
// when it did what was wanted.
func (p Pushed) problem() string {
	if p.What == "" || p.Held {
		return ""
	}
	seen := p.Seen
	if p.Left != "" {
		seen = p.Left
	}
	asked := p.Asked
	if asked == "" {
		asked = "no refresh asked for"
	}
	return fmt.Sprintf("%s, pushed to git, not %s within %s with %s: %s", p.What, p.Wanted, PickUp, asked, seen)
}
