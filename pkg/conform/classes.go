package conform

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// The classes of 2026's ArgoCD integration bugs (issue #59): a render that
// depends on Helm's lookup, a hook that cannot run, a hook whose kind
// another hook makes, ArgoCD's self-heal and a controller writing one field
// in turn.

// helmLookup is the class of a chart whose render depends on what Helm's
// lookup finds in the cluster (kubeovn/kube-ovn#6248): ArgoCD's repo server
// renders as `helm template`, lookup answering nothing, so what the chart
// renders from a live object never reaches the cluster.
func helmLookup(k *cell) []step.Step {
	calls := lookupCalls(k.spec.Chart.Files)
	var last lookupFinding
	return []step.Step{
		env.Observe("the chart's templates that call Helm's lookup", assert.Constant(len(calls) > 0, text.OrNone(strings.Join(calls, ", ")))),
		// the live objects lookup reads are the sync's: a sync held by a hook
		// has applied them all the same
		env.SeeWithin(assert.Intervals.Install, check.OperationEnded(k.app)),
		// ArgoCD renders again, as when its manifest cache expires: a value
		// the chart makes anew without lookup (a certificate) is then new
		env.Refresh(k.app, true),
		assert.Occurs(assert.Intervals.HoldShort, assert.Named("ArgoCD's render differs from the chart rendered with lookup answered by the cluster", k.lookupDiffers(&last))),
		// what the verdict's last look saw (rendering again would make new
		// random values, and cost four renders)
		env.Observe("the objects and fields the chart renders otherwise when lookup finds the live objects, and what ArgoCD rendered",
			assert.Later(func(context.Context) (assert.Check, error) { return assert.Constant(last.differs, last.seen), nil })),
	}
}

// lookupCall is a template's call of Helm's lookup function.
var lookupCall = regexp.MustCompile(`\blookup\s+"`)

// lookupCalls are the template lines that call lookup (path:line), in the
// chart's templates and its subcharts'.
func lookupCalls(files map[string]string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.Contains(name, "templates/") {
			continue
		}
		for i, line := range strings.Split(files[name], "\n") {
			if lookupCall.MatchString(line) {
				out = append(out, fmt.Sprintf("%s:%d", name, i+1))
			}
		}
	}
	return out
}

// masked is a value of a Secret's data as ArgoCD's API shows it.
var masked = regexp.MustCompile(`^"\++"$`)

// shownValue bounds a value an observation quotes (a certificate is long).
const shownValue = 60

// lookupFinding is lookupDiffers' last answer.
type lookupFinding struct {
	differs bool
	seen    string
}

// lookupDiffers holds when a field of the chart's render with lookup
// answered by the cluster (twice, the same both times) differs from both of
// two renders with lookup answering nothing, and ArgoCD's repo server
// rendered the latter's. Two renders of each kind tell lookup's effect from
// a value the chart makes anew at every render (genCA, randAlphaNum).
// It keeps its last answer in last.
func (k *cell) lookupDiffers(last *lookupFinding) assert.Check {
	return assert.Unscripted(func(ctx context.Context) (bool, string, error) {
		s := k.spec
		r := helm.Release{Name: s.Release, Namespace: s.Namespace, Chart: s.Chart.Dir, Values: s.values, KubeVersion: s.kubernetes}
		var answered, empty [2]map[string]renderedObject
		for i := range 2 {
			docs, err := helm.Templates(r, lifecycle.From(ctx).REST)
			if err != nil {
				return false, "", assert.Unknown(fmt.Errorf("the chart with lookup answered by the cluster: %w", err))
			}
			if answered[i], err = indexRender(docs, s.Namespace); err != nil {
				return false, "", assert.Unknown(err)
			}
			if docs, err = helm.Templates(r, nil); err != nil {
				return false, "", assert.Unknown(fmt.Errorf("the chart with lookup answering nothing: %w", err))
			}
			if empty[i], err = indexRender(docs, s.Namespace); err != nil {
				return false, "", assert.Unknown(err)
			}
		}
		argo, err := check.AppManifests(ctx, k.app)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		argoObjs := map[string]map[string]string{}
		for _, o := range argo.Objects {
			argoObjs[objectKey(o, s.Namespace)] = flatten(o.Object)
		}
		resources, err := check.StatusResources(ctx, k.app)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		status := map[string]string{}
		for _, r := range resources {
			status[refIn(s.Namespace, r.Group, r.Kind, r.Namespace, r.Name)] = r.Status
		}
		var lines []string
		differs := false
		for _, key := range keysOf(answered[0], empty[0]) {
			a0, inA := answered[0][key]
			a1 := answered[1][key]
			e0, inE := empty[0][key]
			e1 := empty[1][key]
			switch {
			case inA && !inE:
				lines = append(lines, fmt.Sprintf("%s (%s): rendered only with lookup answered by the cluster; in ArgoCD's render: %v", key, a0.template, argoObjs[key] != nil))
				differs = differs || argoObjs[key] == nil
				continue
			case inE && !inA:
				lines = append(lines, fmt.Sprintf("%s (%s): rendered only with lookup answering nothing; in ArgoCD's render: %v", key, e0.template, argoObjs[key] != nil))
				differs = differs || argoObjs[key] != nil
				continue
			}
			var fields []string
			for _, p := range keysOf(a0.fields, e0.fields) {
				v := a0.fields[p]
				if a1.fields[p] != v || e0.fields[p] == v || e1.fields[p] == v {
					continue // the same whatever lookup finds, or anew at every render
				}
				got, ok := argoObjs[key][p]
				switch {
				case !ok:
					got = "(none)"
				case masked.MatchString(got):
					// ArgoCD's API masks a Secret's data: its diff, which
					// does not, tells instead
					fields = append(fields, fmt.Sprintf("%s: with lookup %s, without %s, ArgoCD's render masked (a Secret's data), the object %s in ArgoCD after a hard refresh",
						p, short(v), short(e0.fields[p]), cmp.Or(status[key], "(no status)")))
					differs = differs || status[key] == "OutOfSync"
					continue
				}
				fields = append(fields, fmt.Sprintf("%s: with lookup %s, without %s, ArgoCD rendered %s", p, short(v), short(e0.fields[p]), short(got)))
				differs = differs || got != v
			}
			if len(fields) > 0 {
				lines = append(lines, fmt.Sprintf("%s (%s): %s", key, a0.template, strings.Join(fields, "; ")))
			}
		}
		*last = lookupFinding{differs, strings.Join(lines, "; ")}
		if len(lines) == 0 {
			last.seen = fmt.Sprintf("the chart renders the same with lookup answered by the cluster and without (%d objects)", len(answered[0]))
		}
		return last.differs, last.seen, nil
	})
}

// renderedObject is an object of a render: its template and its fields.
type renderedObject struct {
	template string
	fields   map[string]string
}

// indexRender reads a render's documents by object (objectKey).
func indexRender(docs []helm.Document, namespace string) (map[string]renderedObject, error) {
	out := map[string]renderedObject{}
	for _, d := range docs {
		objs, err := kube.Decode(d.Manifest)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Template, err)
		}
		for _, o := range objs {
			out[objectKey(o, namespace)] = renderedObject{template: d.Template, fields: flatten(o.Object)}
		}
	}
	return out, nil
}

// objectKey names an object as kubectl does (kind.group namespace/name),
// the release's namespace for one the chart gives none.
func objectKey(o *unstructured.Unstructured, namespace string) string {
	return refIn(namespace, o.GroupVersionKind().Group, o.GetKind(), o.GetNamespace(), o.GetName())
}

// refIn is objectKey of an object named by its parts (a resource of
// ArgoCD's status).
func refIn(namespace, group, kind, ns, name string) string {
	return lifecycle.Ref(check.KindRef(kind, group), cmp.Or(ns, namespace), name)
}

// flatten is an object's leaves by path (.spec.template.spec.containers[0].image), JSON values.
func flatten(obj map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				out[path] = "{}"
			}
			for k, x := range t {
				walk(path+"."+k, x)
			}
		case []any:
			if len(t) == 0 {
				out[path] = "[]"
			}
			for i, x := range t {
				walk(fmt.Sprintf("%s[%d]", path, i), x)
			}
		default:
			data, _ := json.Marshal(t)
			out[path] = string(data)
		}
	}
	for k, v := range obj {
		walk("."+k, v)
	}
	return out
}

// keysOf are the keys of both maps, sorted, each once.
func keysOf[V any](a, b map[string]V) []string {
	keys := append(slices.Collect(maps.Keys(a)), slices.Collect(maps.Keys(b))...)
	slices.Sort(keys)
	return slices.Compact(keys)
}

func short(v string) string {
	if len(v) > shownValue {
		return v[:shownValue] + "..."
	}
	return v
}

// hookHeld is the class of a hook that cannot run (bitnami/kubectl tags gone
// from docker.io: 1.32.3 of Kyverno's chart 3.4.x hooks, KBVE/kbve#10564;
// 1.28.5 of Kyverno 1.12.5's cleanup CronJobs, kyverno/kyverno#14169;
// KBVE/kbve#11149: kyverno-clean-reports in ImagePullBackOff held an
// Application's operation Running 11 days, so KBVE/kbve#10564's chart bump
// never synced): its Pod never starts, ArgoCD waits for it with the
// operation Running, and no later sync can start.
func hookHeld(k *cell) []step.Step {
	stuck := k.hookCannotRun()
	// Terminating holds the Application as Running does (no other operation
	// starts): a sync timeout that left it there would not be a way out
	running := assert.Any(check.OperationPhaseIs(k.app, synccommon.OperationRunning), check.OperationPhaseIs(k.app, synccommon.OperationTerminating))
	return []step.Step{
		env.Observe("the chart's hooks ArgoCD runs at a sync", k.hooksListed()),
		assert.That("install sync ended, or a hook's Pod that cannot run", assert.Intervals.Install, assert.Any(check.OperationEnded(k.app), stuck)),
		env.See(check.HookResults(k.app)),
		assert.Symptom(heldHook, assert.Named(fmt.Sprintf("the sync held Running (or Terminating) by a hook whose Pod cannot run, for %s", heldHook), assert.All(running, stuck))),
		env.Observe("the Pods of the chart's hooks and what each waits on", stuck),
		env.See(check.OperationMessageContains(k.app, "")),
	}
}

// heldHook is how long a sync held by a hook that cannot run must stay
// Running: longer than the image pull's back-off (5 minutes at most) lets
// a pull be tried again, and than a sync timeout of two minutes
// (controller.sync.timeout.seconds) takes to end it.
const heldHook = 3 * time.Minute

// hooksListed says which hooks ArgoCD runs at a sync.
func (k *cell) hooksListed() assert.Check {
	hooks := k.spec.Rendered.Hooks()
	var names []string
	for _, h := range hooks {
		names = append(names, fmt.Sprintf("%s %s/%s (%s)", h.GetKind(), h.GetNamespace(), h.GetName(), h.Hook))
	}
	return assert.Constant(len(hooks) > 0, text.OrNone(strings.Join(names, ", ")))
}

// hookCannotRun holds when a Pod of one of the chart's hook Jobs (or a hook
// Pod) waits on its image (a pull failed) or is Unschedulable; it says each
// hook Pod's state.
func (k *cell) hookCannotRun() assert.Check {
	return assert.Named("a Pod of the chart's hooks cannot run", func(ctx context.Context) (bool, string, error) {
		var lines []string
		stuck := false
		for _, h := range k.spec.Rendered.Hooks() {
			ns := cmp.Or(h.GetNamespace(), k.spec.Namespace)
			var pods []unstructured.Unstructured
			switch h.GetKind() {
			case "Job":
				list, err := check.List(ctx, env.Selection{Kinds: "pods", Namespace: ns, Labels: "job-name=" + h.GetName()})
				if err != nil {
					return false, "", assert.Unknown(err)
				}
				pods = list.Items
			case "Pod":
				pod, err := check.Get(ctx, lifecycle.Object{Kind: "pod", Namespace: ns, Name: h.GetName()})
				if lifecycle.NotFound(err) {
					continue
				}
				if err != nil {
					return false, "", assert.Unknown(err)
				}
				pods = append(pods, *pod)
			default:
				continue
			}
			for _, p := range pods {
				why, cannot := check.PodCannotRun(p.Object)
				stuck = stuck || cannot
				lines = append(lines, fmt.Sprintf("hook %s %s/%s: pod %s %s", h.GetKind(), ns, h.GetName(), p.GetName(), why))
			}
		}
		if len(lines) == 0 {
			return false, "no Pod of the chart's hooks", nil
		}
		return stuck, strings.Join(lines, "; "), nil
	})
}

// hookKind is the class of a hook whose kind another hook of the same sync
// makes (castai/helm-charts#1526: castai-evictor's PostSync EvictorConfig,
// whose CRD its PreSync Job creates): before the dry run and the first
// phase, gitops-engine's getSyncTasks looks up every task's kind, hooks
// included, and a kind the cluster does not serve yet fails the whole sync,
// "one or more synchronization tasks are not valid", the hook that would
// make it too (argo-cd v3.6.1 gitops-engine pkg/sync/sync_context.go:498-518,
// :1076-1129).
func hookKind(k *cell) []step.Step {
	return []step.Step{
		env.Observe("the chart's hooks ArgoCD runs at a sync", k.hooksListed()),
		assert.That("install sync ended", assert.Intervals.Install, check.OperationEnded(k.app)),
		env.See(check.HookResults(k.app)),
		env.See(check.OperationMessageContains(k.app, "")),
		assert.Occurs(assert.Intervals.Poll, assert.Named("the sync failed: the cluster does not serve the kind of one of the chart's objects", k.failedOnKind())),
		env.Observe("the objects of the chart the sync failed on for their kind", k.failedOnKind()),
	}
}

// unservedHooks reads, before the sync, which of the chart's hooks are of
// a kind the cluster does not serve (nor a CRD of the chart's defines); a
// CRD that comes to serve one (a hook Job's) is deleted at the end.
func (k *cell) unservedHooks() []step.Step {
	const what = "the chart's hooks whose kind the cluster does not serve before the sync"
	return []step.Step{appcell.Reads(what, func(ctx context.Context) error {
		ok, seen, err := k.readUnserved(ctx)
		if err != nil {
			return err
		}
		lifecycle.Note(ctx, "%s: %v (%s)", what, !ok, seen)
		return nil
	}), env.DeleteCRDsAtEnd("the CRDs made during the cell that serve a kind of the chart's hooks", func() []string { return k.unserved })}
}

// readUnserved records the kinds of the chart's hooks the cluster does not
// serve; it holds when there is none.
func (k *cell) readUnserved(ctx context.Context) (bool, string, error) {
	var lines []string
	for _, h := range k.spec.Rendered.Hooks() {
		gvk := h.GroupVersionKind()
		kind := check.KindRef(gvk.Kind, gvk.Group)
		if slices.ContainsFunc(k.spec.Rendered.CRDs(), func(crd string) bool { return strings.HasSuffix(crd, "."+gvk.Group) }) {
			continue // the chart's own CRD: ArgoCD skips the dry run of its kind
		}
		served, err := check.Serves(ctx, kind)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		if !served {
			k.unserved = append(k.unserved, kind)
			lines = append(lines, fmt.Sprintf("%s %s/%s (%s): %s not served", h.GetKind(), h.GetNamespace(), h.GetName(), h.Hook, gvk.GroupVersion()))
		}
	}
	if len(lines) == 0 {
		return true, "none", nil
	}
	return false, strings.Join(lines, "; "), nil
}

// missingKind is what ArgoCD's sync says of an object whose kind the
// cluster does not serve (gitops-engine's check of each task in
// getSyncTasks, before the dry run: the discovery's NotFound; kubectl's
// "ensure CRDs are installed first").
var missingKind = regexp.MustCompile(`could not find the requested resource|could not find .* for requested resource|CRD is installed|no matches for kind|ensure CRDs are installed first|the server doesn't have a resource type`)

// failedOnKind holds when the sync ended Failed or Error with an object of
// the chart failed on a kind the cluster does not serve.
func (k *cell) failedOnKind() assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		app, err := check.App(ctx, k.app)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		op := app.Status.OperationState
		if op == nil {
			return false, "no operation", nil
		}
		var failed []string
		if op.SyncResult != nil {
			for _, r := range op.SyncResult.Resources {
				if r.Status == synccommon.ResultCodeSyncFailed && missingKind.MatchString(r.Message) {
					failed = append(failed, fmt.Sprintf("%s %s/%s (%s): %s", r.Kind, r.Namespace, r.Name, cmp.Or(string(r.HookType), "not a hook"), r.Message))
				}
			}
		}
		if missingKind.MatchString(op.Message) && len(failed) == 0 {
			failed = append(failed, "the operation: "+op.Message)
		}
		ended := op.Phase == synccommon.OperationFailed || op.Phase == synccommon.OperationError
		if len(failed) == 0 {
			return false, fmt.Sprintf("operation %s: %s; no object failed on its kind", op.Phase, op.Message), nil
		}
		return ended, fmt.Sprintf("operation %s: %s", op.Phase, strings.Join(failed, "; ")), nil
	}
}

// selfHealFight is the class of an object that ArgoCD's self-heal and a
// controller write in turn (openkruise/charts#192,
// external-secrets/external-secrets#6398, KBVE/kbve#11149's Kyverno 1.18
// policies.kyverno.io CRDs): the Application syncs itself (automated, selfHeal,
// ServerSideApply=true), the controller rewrites a field the chart sets,
// self-heal applies the chart's again, without end.
func selfHealFight(k *cell) []step.Step {
	f := &fight{}
	return []step.Step{
		assert.That("application "+k.app+"'s automated sync Succeeded", assert.Intervals.Install, check.OperationPhaseIs(k.app, synccommon.OperationSucceeded)),
		assert.Occurs(assert.Intervals.Sync, assert.Named(fmt.Sprintf("ArgoCD's self-heal syncs the chart %d times more within %s", fightSyncs, assert.Intervals.Sync), k.selfHeals(f))),
		env.Observe("the automated syncs seen, and what each changed", k.selfHeals(f)),
		env.Observe("the resources ArgoCD shows OutOfSync, and the chart's fields the live objects lack or hold otherwise", Drift(k.app, k.spec.Rendered)),
		env.Observe("the field managers of the objects the automated syncs changed", k.managers(f)),
	}
}

// fight is what selfHeals saw: when each automated sync started, and the
// objects (kind namespace/name) one of them changed.
type fight struct {
	starts  []time.Time
	changed []v1alpha1.ResourceResult
}

// fightSyncs is how many automated syncs after the first make a fight: a
// single one may be ArgoCD catching up with an object a controller filled
// in once (a default, a status-like field).
const fightSyncs = 3

// selfHeals holds when fightSyncs automated syncs started after the first
// one; it says when each started, and which objects the syncs after the
// first changed (each once, with its message).
func (k *cell) selfHeals(f *fight) assert.Check {
	// unscripted: describing it must not count a sync
	return assert.Unscripted(func(ctx context.Context) (bool, string, error) {
		app, err := check.App(ctx, k.app)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		op := app.Status.OperationState
		if op != nil && op.Operation.InitiatedBy.Automated && !slices.ContainsFunc(f.starts, op.StartedAt.Time.Equal) {
			f.starts = append(f.starts, op.StartedAt.Time)
		}
		if op != nil && op.SyncResult != nil && len(f.starts) > 1 && op.StartedAt.Time.Equal(f.starts[len(f.starts)-1]) {
			for _, r := range op.SyncResult.Resources {
				same := func(o *v1alpha1.ResourceResult) bool {
					return o.Group == r.Group && o.Kind == r.Kind && o.Namespace == r.Namespace && o.Name == r.Name
				}
				if r.HookType == "" && !strings.Contains(r.Message, "unchanged") && !slices.ContainsFunc(f.changed, func(o v1alpha1.ResourceResult) bool { return same(&o) }) {
					f.changed = append(f.changed, *r)
				}
			}
		}
		var at, changed []string
		for _, t := range f.starts {
			at = append(at, t.UTC().Format(time.TimeOnly))
		}
		for _, r := range f.changed {
			changed = append(changed, fmt.Sprintf("%s %s/%s %q", r.Kind, r.Namespace, r.Name, r.Message))
		}
		more := len(f.starts) - 1
		return more >= fightSyncs, fmt.Sprintf("%d automated sync(s) after the first (automated syncs started %s); sync status now %s; changed by those after the first: %s",
			max(more, 0), text.OrNone(strings.Join(at, ", ")), app.Status.Sync.Status, text.OrNone(strings.Join(changed, ", "))), nil
	})
}

// managers says, for each object the automated syncs after the first
// changed, which field managers wrote it and when: ArgoCD's
// (argocd-controller) and the controller's it fights with.
func (k *cell) managers(f *fight) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		var lines []string
		for _, r := range f.changed {
			live, err := check.Get(ctx, lifecycle.Object{Kind: check.KindRef(r.Kind, r.Group), Namespace: r.Namespace, Name: r.Name})
			if err != nil {
				lines = append(lines, fmt.Sprintf("%s %s/%s: could not tell: %v", r.Kind, r.Namespace, r.Name, err))
				continue
			}
			var managers []string
			for _, m := range live.GetManagedFields() {
				sub := ""
				if m.Subresource != "" {
					sub = " of " + m.Subresource
				}
				at := ""
				if m.Time != nil {
					at = " " + m.Time.UTC().Format(time.TimeOnly)
				}
				managers = append(managers, fmt.Sprintf("%s (%s%s%s)", m.Manager, m.Operation, sub, at))
			}
			lines = append(lines, fmt.Sprintf("%s %s/%s: %s", r.Kind, r.Namespace, r.Name, strings.Join(managers, ", ")))
		}
		return len(lines) == 0, text.OrNone(strings.Join(lines, "; ")), nil
	}
}
