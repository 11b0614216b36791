package cell

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/upgrade/spec"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/pkg/upgrade/inplace"
)

// cell is one Application through the upgrade: the spec, the source
// pushed, and what the cell reads of it on the way (Observed).
type cell struct {
	spec  *spec.Spec
	app   spec.App
	files fixture.Files // the source as pushed to the git server
	// when the upgrade was over
	upgraded time.Time
	Observed
	// the webhook configurations there before the Application, and those
	// of it released at the end
	appcell.Cell
}

// Observed is what a cell read of its Application through the upgrade
// FROM -> TO: the verdict's input (Reading). A part left nil or empty was
// not read (the cell ended first).
type Observed struct {
	From, To catalog.Release
	// the states read: on FROM after its syncs, on TO after its own
	// refresh, on TO after the syncs of the commits pushed
	OnFrom, Refreshed, Synced *appstate.State
	// what ArgoCD did with the commits pushed: on FROM, and on TO
	Added, Removal, Change Pushed
	// with CHANGE: what ArgoCD did with the patch's revert
	Revert Pushed
	// the commits pushed during a sync (DURING_SYNC): on FROM, and on TO
	DuringFrom, DuringTo Trials
	// the fields of the Application's status on FROM and on TO, after
	// their syncs (appstate.Fields)
	FieldsFrom, FieldsTo []string
	// the renders of FROM's and TO's repo servers, and how they differ
	RenderFrom, RenderTo *argocd.Render
	Changes              []appstate.ObjectChange
	// Newest is the newest render as make conform reads a chart's, parsed
	// once when read (heldByHook asks for its hooks at every look of a wait)
	Newest *appcell.Rendered
	// the cascading deletions on FROM and on TO
	DelFrom, DelTo Deletion
}

// Feature is a cell of make upgrade-check (s, one Application of it: c.Variant). On ArgoCD FROM: the
// Application created through the suite's git server with its sync policy
// as written and synced (by ArgoCD itself where automated), FROM's render
// recorded; deleted with cascade, what happened recorded (the deletion's
// baseline), what it left held released; created and synced again, its
// state recorded after a commit to its source (push). ArgoCD upgraded in
// place to TO as the team does it (inplace.Steps: an upgrade that cannot
// finish ends the cell BROKEN there, saying why); the state once TO's controller compared it by itself; a
// removal and then a change pushed to git, what ArgoCD did with each asked
// nothing (push); TO's render recorded and compared, the state recorded;
// the cascading deletion again. Then the verdict (Grade).
func Feature(s *spec.Spec, c matrix.Cell) step.Scenario {
	steps := step.New(c.Report().ID())
	a, ok := s.App(c.Variant.Name)
	switch {
	case !ok: // Plan makes no such cell; it ends ERROR saying so
		return steps.Add(env.Fail("application "+c.Variant.Name, fmt.Errorf("no application %q in APPS", c.Variant.Name))).Scenario()
	case len(c.Upgrades) == 0:
		return steps.Add(env.Fail("upgrade", fmt.Errorf("no release to upgrade to newer than %s", c.ArgoCD))).Scenario()
	}
	k := &cell{spec: s, app: a, Observed: Observed{From: c.ArgoCD, To: c.Upgrades[len(c.Upgrades)-1]}}
	k.Rendered, k.Namespaces = k.renderedWebhooks, k.namespaces
	k.files = fixture.OfflinePullPolicy(func(context.Context) (map[string]string, error) { return a.Source.Files, nil })
	name, from, to := a.Name(), k.From.String(), k.To.String()
	steps.Add(env.Provided("application "+name+"'s source", k.files), k.describe(),
		// registered first, these run last: what the Application left
		env.RemoveRenderedAtEnd("what the application left", k.rendered), env.ReleaseCRDsAtEnd("the application's custom resources", k.crds, a.Namespace()))
	steps.Add(k.images()...)
	steps.Add(TeamArgoCD(s, k.From)...)
	steps.Add(k.namespace().Steps()...)
	if ns := a.Namespace(); ns != "" {
		// its events: what the workloads did (a CronJob's runs), on each side
		steps.Add(env.Watch(env.Namespace(ns)))
	}
	steps.Add(k.SeeBefore("the webhook configurations before the application"), k.ForgetWebhooksAtEnd("the application's webhook configurations left"), env.PushRepo(name, k.files), k.repository(), env.CreateApp(k.application()))
	// the render first: its hooks tell a sync held by one (heldByHook)
	steps.Add(k.render(&k.RenderFrom, "render-"+from+".yaml"), k.finalizersAtEnd())
	steps.Add(k.syncs("on " + from)...)
	steps.Add(k.deletion(from, &k.DelFrom)...)
	steps.Add(k.release(&k.DelFrom, from))
	steps.Add(k.namespace().Again()...)
	steps.Add(env.CreateApp(k.application()).As("create application " + name + " again on " + from))
	steps.Add(k.syncs("on " + from + ", created again")...)
	// a commit on FROM, as a team's: what FROM does with one (the baseline)
	steps.Add(k.push(&k.Added, added, from)...)
	steps.Add(k.duringSync(&k.DuringFrom, k.From, false)...)
	steps.Add(k.read("on "+from+" after its syncs", &k.OnFrom), k.fields(from, &k.FieldsFrom), env.Snapshot("on-"+from))
	steps.Add(inplace.Steps(k.From, k.To, inplace.How{Method: k.spec.Method, SyncOptions: k.spec.SelfSyncOptions, Overlay: k.spec.Overlay}, k)...)
	// no refresh asked for: TO's controller compares the Application by
	// itself when it starts, as after a team's upgrade
	steps.Add(k.mark(&k.upgraded),
		env.ObserveWithin("application "+name+" compared by "+to+"'s controller by itself", assert.Intervals.Install, check.ReconciledSince(name, func() time.Time { return k.upgraded })),
		env.ObserveWithin("application "+name+"'s operation completed on "+to, assert.Intervals.Hold, k.completed()),
		// the controller's first comparison can meet a repo server still
		// coming up (ComparisonError, sync Unknown: run 20261128-062113); the
		// controller compares again by itself within its reconciliation
		// timeout, as a user's would, and Unknown still after that is the state
		env.ObserveWithin("application "+name+" compared on "+to+" (sync status known)", assert.Intervals.Hold,
			assert.Any(check.SyncStatusIs(name, v1alpha1.SyncStatusCodeSynced), check.SyncStatusIs(name, v1alpha1.SyncStatusCodeOutOfSync))),
		k.read("on "+to+" after its own refresh", &k.Refreshed))
	// then a team's next commits, by itself where the Application syncs by
	// itself: a removal of what was made on FROM, before any sync on TO (3.0's
	// orphans: an object tracked as FROM tracks it), then a change
	steps.Add(k.push(&k.Removal, removed, to)...)
	steps.Add(k.push(&k.Change, changed, to)...)
	if _, ok := s.Changes[name]; ok {
		// the source as on FROM again, so that TO's render compares with FROM's
		steps.Add(k.push(&k.Revert, reverted, to)...)
	}
	steps.Add(k.duringSync(&k.DuringTo, k.To, true)...)
	// the source as on FROM but for the marker's annotation, at a new
	// commit: TO's repo server renders it (the marker left out of the compare)
	steps.Add(k.render(&k.RenderTo, "render-"+to+".yaml"), k.compare(),
		env.ObserveWithin("application "+name+" Synced on "+to, assert.Intervals.Hold, check.SyncStatusIs(name, v1alpha1.SyncStatusCodeSynced)),
		env.ObserveWithin("application "+name+"'s health settled on "+to+" (not Progressing)", assert.Intervals.Rollout, k.healthSettled()),
		k.read("on "+to+" after its syncs", &k.Synced), k.fields(to, &k.FieldsTo), env.Snapshot("on-"+to))
	steps.Add(k.deletion(to, &k.DelTo)...)
	return steps.Add(assert.Graded("application "+name+" through the upgrade "+from+" -> "+to, k.grade), k.release(&k.DelTo, to)).Scenario()
}

// TeamArgoCD are the steps that make the cluster and ArgoCD FROM as the
// team runs them: the cluster's metrics-server (METRICS), FROM through the
// team's overlay (METHOD=kustomize), its argocd-cm (ARGOCD_CM) and
// argocd-cmd-params-cm (ARGOCD_CMD_PARAMS). A cell and the fleet both
// start so.
func TeamArgoCD(s *spec.Spec, from catalog.Release) []step.Step {
	steps := []step.Step{env.MetricsServer(s.Metrics)}
	if s.Method == argocd.Kustomize {
		steps = append(steps, env.ArgoCDThroughOverlay(from, s.Overlay))
	}
	if len(s.ArgoCDConfig) > 0 {
		steps = append(steps, env.SetArgoCDConfig(s.ArgoCDConfig))
	}
	if len(s.ArgoCDCmdParams) > 0 {
		steps = append(steps, env.SetArgoCDCmdParams(s.ArgoCDCmdParams))
	}
	return steps
}

// AppName is the Application's name (inplace.Owner).
func (k *cell) AppName() string { return k.app.Name() }

// OwnWebhooks are, of the live webhooks, the Application's: those its
// renders hold, and those its controllers registered at run time
// (appcell.ChartWebhooks) (inplace.Owner).
func (k *cell) OwnWebhooks(_ context.Context, live []check.Webhook) map[string]string {
	rendered, err := k.renderedWebhooks()
	if err != nil {
		return nil
	}
	own := rendered
	if k.Before != nil {
		own = append(rendered, appcell.ChartWebhooks(live, rendered, k.Before, k.Namespaces())...)
	}
	out := map[string]string{}
	for _, w := range own {
		out[w.ConfigRef()] = k.app.Name()
	}
	return out
}

// deletion deletes the Application with cascade as `argocd app delete`
// does (foreground: its resources first) and records into dst what
// happened: whether it went within the wait, what held it, what was left.
func (k *cell) deletion(on string, dst *Deletion) []step.Step {
	name := k.app.Name()
	return []step.Step{env.DeleteApp(name, env.Foreground).As("delete application " + name + " with cascade on " + on),
		env.ObserveWithin("application "+name+" deleted on "+on+" (its resources first)", assert.Intervals.Rollout, check.AppGone(name)),
		k.readDeletion(on, dst)}
}

// renderedWebhooks are the webhooks of the renders read so far.
func (k *cell) renderedWebhooks() ([]check.Webhook, error) {
	return check.Webhooks(Manifest(k.objects()))
}

// namespaces are the namespaces the Application's objects live in.
func (k *cell) namespaces() []string {
	namespaces := []string{k.app.Namespace()}
	for _, o := range k.objects() {
		if ns := o.GetNamespace(); ns != "" && !slices.Contains(namespaces, ns) {
			namespaces = append(namespaces, ns)
		}
	}
	return namespaces
}

// release takes the finalizers off what a cascading deletion left held
// (the Application too), once it is recorded, and waits for the
// Application to go: what follows starts clean.
func (k *cell) release(d *Deletion, on string) step.Step {
	name := k.app.Name()
	what := "release what the cascading deletion on " + on + " left held (finalizers off)"
	return step.Act(what, func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		var steps []step.Step
		app := lifecycle.Application(name)
		for _, o := range append(slices.Clone(d.Terminating), app) {
			live, err := check.Get(ctx, o)
			if err != nil {
				continue // gone since, or unreadable: the cleanup deletes what is left
			}
			for _, f := range live.GetFinalizers() {
				// one taken off can let the object go, and its other finalizers with it
				steps = append(steps, env.If(check.FinalizerPending(o, f), "finalizer "+f+" still holding "+o.Name, env.RemoveFinalizer(o, f)))
			}
		}
		steps = append(steps, assert.Await(assert.Intervals.Sync, check.AppGone(name)))
		return env.InOrder(what, steps...).Func()(ctx, t, cfg)
	})
}

// describe records the Application as given and its source.
func (k *cell) describe() step.Step {
	return appcell.Reads("the application and its source", func(ctx context.Context) error {
		a := k.app
		src := a.Source
		what := fmt.Sprintf("%s from %s (%d files)", src.Kind(), src.From, len(src.Files))
		if c := src.Chart; c != nil {
			what = fmt.Sprintf("Helm chart %s %s from %s (%d files, content sha256 %s)", c.Name, c.Version, src.From, len(c.Files), c.Digest)
		}
		lifecycle.Note(ctx, "application %s (%s): %s, into namespace %s", a.Name(), a.File, what, text.OrNone(a.Namespace()))
		given, err := yaml.Marshal(a.Spec)
		if err != nil {
			return err
		}
		lifecycle.CellFrom(ctx).WriteEvidence("application-given.yaml", string(given))
		return nil
	})
}

// images gives the node the images the run and the Application name.
func (k *cell) images() []step.Step {
	var out []step.Step
	if imgs := append(slices.Clone(k.spec.Images), k.app.Images...); len(imgs) > 0 {
		out = append(out, env.LocalImages("IMAGES and "+spec.ImagesAnnotation, imgs))
	}
	for _, r := range append(slices.Clone(k.spec.Recipes), k.app.Recipes...) {
		out = append(out, env.ComponentImages(r[0], r[1]))
	}
	return out
}

// namespace is the destination namespace, made beforehand as platform
// teams do unless the Application creates it (CreateNamespace=true).
func (k *cell) namespace() appcell.Namespace {
	return appcell.Namespace{Name: k.app.Namespace(), ArgoCDCreates: slices.Contains(k.syncOptions(), "CreateNamespace=true")}
}

// syncOptions are the Application's sync options.
func (k *cell) syncOptions() []string {
	if p := k.app.Spec.Spec.SyncPolicy; p != nil {
		return p.SyncOptions
	}
	return nil
}

// application is the user's Application as the suite creates it: its
// source the suite's git server, its destination this cluster, its project
// default; its sync policy (automated, prune, selfHeal, retry, options) as
// the user wrote it.
func (k *cell) application() fixture.App {
	name := k.app.Name()
	return fixture.App{Name: name, Render: func() (*v1alpha1.Application, error) {
		given := k.app.Spec
		app := &v1alpha1.Application{}
		app.APIVersion, app.Kind = "argoproj.io/v1alpha1", "Application"
		app.Name, app.Namespace = name, argocd.Namespace
		app.Labels = map[string]string{"app.kubernetes.io/part-of": "gitops-conformance"}
		app.Annotations = spec.Kept(given.Annotations)
		spec := given.Spec.DeepCopy()
		src := spec.Source.DeepCopy()
		src.RepoURL, src.Path, src.Chart, src.TargetRevision = gitserver.URL(name), ".", "", ""
		spec.Source = src
		spec.Project = "default"
		spec.Destination = v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: given.Spec.Destination.Namespace}
		app.Spec = *spec
		return app, nil
	}}
}

// repository registers the Application's repository with ArgoCD (a
// Secret of type repository, git), as a team registers its own, private,
// repository: ArgoCD treats one it does not know as of no type, and v3.4.2's
// repo server then answers manifest-generate-paths' UpdateRevisionForPaths
// "no changes" for every commit (reposerver/repository/repository.go:3358,
// util/db/repository.go:163), so no commit is auto-synced (run
// 20261128-110639).
func (k *cell) repository() step.Step {
	name := k.app.Name()
	return env.Apply("application "+name+"'s repository, registered as a team registers its own", spec.RepositorySecret(name, gitserver.URL(name)))
}

// syncs syncs the Application as a user does at an install and again (an
// upgrade: the hooks run each time), unless the first is held by a hook.
// An Application that syncs by itself is not synced: the check waits for
// ArgoCD's own sync.
func (k *cell) syncs(on string) []step.Step {
	name := k.app.Name()
	if k.automated() {
		return []step.Step{
			env.ObserveWithin("ArgoCD's auto-sync "+on+" completed, or held by a hook", assert.Intervals.Install, k.settled()),
			env.ObserveWithin("application "+name+" Synced "+on, assert.Intervals.Hold, check.SyncStatusIs(name, v1alpha1.SyncStatusCodeSynced)),
			env.ObserveWithin("application "+name+"'s health settled "+on+" (not Progressing)", assert.Intervals.Rollout, k.healthSettled()),
		}
	}
	return []step.Step{
		env.Sync(name, k.syncOptions()...).As("sync application " + name + " " + on),
		env.ObserveWithin("the install sync "+on+" completed, or held by a hook", assert.Intervals.Install, k.settled()),
		env.Unless(assert.Any(k.heldByHook(), check.OperationPhaseIs(name, synccommon.OperationRunning)), "sync again "+on+" (an upgrade: the hooks run again)",
			env.Sync(name, k.syncOptions()...).As("sync application "+name+" again "+on)),
		env.ObserveWithin("the second sync "+on+" completed, or held by a hook", assert.Intervals.Install, k.settled()),
		env.ObserveWithin("application "+name+" Synced "+on, assert.Intervals.Hold, check.SyncStatusIs(name, v1alpha1.SyncStatusCodeSynced)),
		env.ObserveWithin("application "+name+"'s health settled "+on+" (not Progressing)", assert.Intervals.Rollout, k.healthSettled()),
	}
}

// healthSettled holds when the Application's health is one it stays in
// by itself: Healthy, Degraded or Suspended (a state read while it is
// Progressing would tell its workloads' start, not the upgrade).
func (k *cell) healthSettled() assert.Check {
	name := k.app.Name()
	return assert.Any(check.HealthIs(name, "Healthy"), check.HealthIs(name, "Degraded"), check.HealthIs(name, "Suspended"))
}

// completed holds when the Application's last operation has ended.
func (k *cell) completed() assert.Check { return check.OperationEnded(k.app.Name()) }

// settled holds when the last operation has ended or is held by a hook.
func (k *cell) settled() assert.Check { return assert.Any(k.completed(), k.heldByHook()) }

// heldByHook holds when the operation is Running and a hook of the render
// is deleted but kept by ArgoCD's hook finalizer (make conform's
// hook-stuck). The hooks are the render's once it is read; before, the
// chart's as the suite renders it.
func (k *cell) heldByHook() assert.Check {
	return assert.Later(func(context.Context) (assert.Check, error) {
		hooks := k.hooks()
		if len(hooks) == 0 {
			return assert.Constant(false, "no hook in the render"), nil
		}
		return check.HeldByHook(k.app.Name(), appcell.Refs(hooks)), nil
	})
}

// hooks are the hooks of the newest render read.
func (k *cell) hooks() []appcell.Object {
	r := k.Newest
	if r == nil {
		return nil
	}
	return r.Hooks()
}

// objects are both renders' objects.
func (k *cell) objects() []*unstructured.Unstructured {
	var objs []*unstructured.Unstructured
	for _, r := range []*argocd.Render{k.RenderFrom, k.RenderTo} {
		if r != nil {
			objs = append(objs, r.Objects...)
		}
	}
	return objs
}

// rendered is both renders as one manifest, for the cleanup.
func (k *cell) rendered(context.Context) (map[string]string, error) {
	return map[string]string{"rendered.yaml": Manifest(k.objects())}, nil
}

// crds are the CRDs (plural.group) of the renders.
func (k *cell) crds() []string {
	var out []string
	for _, o := range k.objects() {
		if o.GetKind() == "CustomResourceDefinition" && !slices.Contains(out, o.GetName()) {
			out = append(out, o.GetName())
		}
	}
	return out
}

// Manifest is objects as one YAML manifest; webhook configurations last
// (a cleanup deleting it last document first takes them before what they guard).
func Manifest(objs []*unstructured.Unstructured) string {
	sorted := slices.Clone(objs)
	slices.SortStableFunc(sorted, func(a, b *unstructured.Unstructured) int {
		return webhookLast(a) - webhookLast(b)
	})
	var docs []string
	for _, o := range sorted {
		b, err := yaml.Marshal(o.Object)
		if err == nil {
			docs = append(docs, string(b))
		}
	}
	return strings.Join(docs, "---\n")
}

func webhookLast(o *unstructured.Unstructured) int {
	if strings.HasSuffix(o.GetKind(), "WebhookConfiguration") {
		return 1
	}
	return 0
}

// finalizersAtEnd removes, when the cell ends, ArgoCD's hook finalizer from
// the render's hooks still holding it: a held hook holds the Application's
// deletion too. Registered after the Application, it runs before that goes.
func (k *cell) finalizersAtEnd() step.Step {
	const what = "at the end: ArgoCD's hook finalizer off the render's hooks"
	return step.Act(what, func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		return env.InOrder(what, appcell.HookFinalizersAtEnd(k.hooks())...).Func()(ctx, t, cfg)
	})
}

// read records the Application's state into dst.
func (k *cell) read(when string, dst **appstate.State) step.Step {
	return appcell.Reads("application "+k.app.Name()+"'s state "+when, func(ctx context.Context) error {
		app, err := check.App(ctx, k.app.Name())
		if err != nil {
			return assert.Unknown(err)
		}
		s := StateOf(ctx, app, lifecycle.From(ctx).ArgoCD.String())
		*dst = &s
		lifecycle.Note(ctx, "%s: %s", when, s)
		return nil
	})
}

// fields records into dst the fields the Application's status holds on a
// release, as the API server returns the resource (what a tool reading
// the CR finds), not as the suite's types know it.
func (k *cell) fields(on string, dst *[]string) step.Step {
	name := k.app.Name()
	return appcell.Reads("the fields of application "+name+"'s status on "+on, func(ctx context.Context) error {
		live, err := check.Get(ctx, lifecycle.Application(name))
		if err != nil {
			return assert.Unknown(err)
		}
		status, _ := live.Object["status"].(map[string]any)
		*dst = appstate.Fields(status)
		lifecycle.CellFrom(ctx).WriteEvidence("status-fields-"+on+".txt", strings.Join(*dst, "\n")+"\n")
		return nil
	})
}

// render records what the running ArgoCD's repo server renders.
func (k *cell) render(dst **argocd.Render, file string) step.Step {
	return appcell.Reads("the manifests "+strings.TrimSuffix(strings.TrimPrefix(file, "render-"), ".yaml")+"'s repo server renders for application "+k.app.Name(), func(ctx context.Context) error {
		var r *argocd.Render
		if err := asked(ctx, "the render", func(ctx context.Context) (err error) {
			r, err = check.AppManifests(ctx, k.app.Name())
			return err
		}); err != nil {
			return err
		}
		*dst = r
		k.Newest, _ = appcell.ParseRendered(Manifest(r.Objects), k.app.Namespace())
		lifecycle.CellFrom(ctx).WriteEvidence(file, Manifest(r.Objects))
		lifecycle.Note(ctx, "argocd %s renders %d objects%s", lifecycle.From(ctx).ArgoCD, len(r.Objects), sourceOf(r))
		return nil
	})
}

// compare compares the two renders, object by object and field by field.
func (k *cell) compare() step.Step {
	return appcell.Reads("the renders of "+k.From.String()+" and "+k.To.String()+" compared", func(ctx context.Context) error {
		k.Changes = appstate.Compare(withoutMarker(k.RenderFrom.Objects), withoutMarker(k.RenderTo.Objects))
		var lines []string
		for _, c := range k.Changes {
			lines = append(lines, c.String())
		}
		lifecycle.CellFrom(ctx).WriteEvidence("render-diff.txt", strings.Join(lines, "\n")+"\n")
		lifecycle.Note(ctx, "the renders of %s and %s: %d object(s) differ", k.From, k.To, len(k.Changes))
		return nil
	})
}

// withoutMarker is objs but the marker (push): what the user's source renders.
func withoutMarker(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	return slices.DeleteFunc(slices.Clone(objs), func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "ConfigMap" && o.GetName() == Marker
	})
}

// Deletion is what a cascading deletion did: whether the Application went
// within the wait, what held it if not, what it left of the render, and
// which of those are held by finalizers.
type Deletion struct {
	Read        bool // the deletion was recorded
	Gone        bool
	Held, Left  string
	Terminating []env.Object
	// LeftKinds are the kinds of what was left, one an object.
	LeftKinds []string
	// Unread are the objects of the render that could not be read (ref:
	// error): whether the cascade left them, the cell could not tell.
	Unread []string
}

// readLeft reads which of refs (a render's objects) are still there after
// the deletion: Left, LeftKinds, Terminating (held by a finalizer), and
// Unread for those that could not be read.
func (d *Deletion) readLeft(ctx context.Context, refs []lifecycle.Object) {
	var left []string
	for _, o := range refs {
		live, err := check.Get(ctx, o)
		switch {
		case lifecycle.NotFound(err):
			continue
		case err != nil:
			d.Unread = append(d.Unread, o.String()+": "+err.Error())
			continue
		}
		left = append(left, check.Remaining(o, live))
		d.LeftKinds = append(d.LeftKinds, o.Kind)
		if live.GetDeletionTimestamp() != nil && len(live.GetFinalizers()) > 0 {
			d.Terminating = append(d.Terminating, o)
		}
	}
	if len(left) > 0 {
		d.Left = fmt.Sprintf("%d of %d there: %s", len(left), len(refs), strings.Join(left, "; "))
	}
}

// UnreadSaid says which objects could not be read, if any.
func (d Deletion) UnreadSaid() string {
	if len(d.Unread) == 0 {
		return ""
	}
	return "; could not tell: " + strings.Join(d.Unread, "; ")
}

// LeftSummary is what the cascade left, counted by kind ("" for nothing):
// the reason's short form of Left.
func (d Deletion) LeftSummary() string {
	counts := map[string]int{}
	for _, k := range d.LeftKinds {
		counts[k]++
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	return strings.Join(parts, ", ")
}

// ReadDeletion records into dst what the cascading deletion on on did
// (readDeletion).
func (k *cell) readDeletion(on string, dst *Deletion) step.Step {
	return appcell.Reads("application "+k.app.Name()+"'s deletion on "+on, func(ctx context.Context) error {
		var refs []lifecycle.Object
		if r := k.Newest; r != nil {
			refs = r.Refs()
		}
		d := ReadDeletion(ctx, k.app.Name(), on, refs)
		*dst = d
		lifecycle.Note(ctx, "the cascading deletion on %s: gone: %v; held: %s; left: %s%s", on, d.Gone, text.OrNone(d.Held), text.OrNone(d.Left), d.UnreadSaid())
		return nil
	})
}

// ReadDeletion reads, after a cascading deletion of the Application name
// on release on, whether it went, what holds it if not (its finalizers, a
// DeletionError, its state) and what of refs (its render's objects) is
// still there: the cell's and the fleet's. What could not be read is kept
// as such (Unread: could not tell), never as gone.
func ReadDeletion(ctx context.Context, name, on string, refs []lifecycle.Object) Deletion {
	d := Deletion{Read: true}
	app, err := check.App(ctx, name)
	switch {
	case lifecycle.NotFound(err):
		d.Gone = true
	case err != nil:
		d.Unread = append(d.Unread, "the Application: "+err.Error())
	default:
		held := []string{"finalizers " + text.OrNone(strings.Join(app.Finalizers, ", "))}
		for _, c := range app.Status.Conditions {
			if c.Type == v1alpha1.ApplicationConditionDeletionError {
				held = append(held, "DeletionError: "+text.Clip(c.Message, 200))
			}
		}
		d.Held = fmt.Sprintf("still there after %s, %s; %s", assert.Intervals.Rollout, strings.Join(held, "; "), appstate.Of(app, on))
	}
	d.readLeft(ctx, refs)
	return d
}

// StateOf is app's state on release with its resources' health as
// ArgoCD's API server gives it (out of the Application's status from 3.0:
// read from the status alone, a 3.x Application shows none) and, for those
// OutOfSync, which fields differ: the explanation, not the verdict (the
// Application's own health and sync status are). An API server that will
// not say, as v2.14.21's managed-resources answered 500 after the upgrade
// (runs 20261127-075606, 20261127-080100), leaves it unexplained and says
// so. A cell and the fleet read every state so.
func StateOf(ctx context.Context, app *v1alpha1.Application, release string) appstate.State {
	s := appstate.Of(app, release)
	var resources []argocd.Resource
	if err := asked(ctx, "application "+app.Name+"'s resources", func(ctx context.Context) (err error) {
		resources, err = check.AppResources(ctx, app.Name)
		return err
	}); err != nil {
		s.Unexplained = err.Error()
	} else {
		s.Explain(resources)
	}
	return s
}

// asked asks ArgoCD's API server with ask, again for a while when it
// fails: it knows an Application created a moment ago once its informer
// has seen it, and answers 500 while an upgrade's new release warms up
// (run 20261127-075606: managed-resources "unknown" after the hard refresh).
// Still failing, it is a read that could not tell.
func asked(ctx context.Context, what string, ask func(ctx context.Context) error) error {
	err := assert.Eventually(ctx, what, assert.Intervals.Hold, func(ctx context.Context) (bool, string, error) {
		if err := ask(ctx); err != nil {
			return false, err.Error(), nil
		}
		return true, "answered", nil
	})
	if err != nil {
		return assert.Unknown(err)
	}
	return nil
}

// sourceOf says what the API server said of a render's source, if anything.
func sourceOf(r *argocd.Render) string {
	var parts []string
	if r.SourceType != "" {
		parts = append(parts, r.SourceType+" source")
	}
	if r.Revision != "" {
		parts = append(parts, "revision "+text.Clip(r.Revision, 12))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
