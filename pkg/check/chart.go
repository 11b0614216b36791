package check

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// The looks make conform's checks judge a user's chart by (pkg/conform):
// the suite's own, composed for the chart at hand. Which workloads, webhooks
// and hooks it has is known once it is rendered and installed, so a check
// builds them when it looks (assert.Later).

// Workload is a Deployment, StatefulSet or DaemonSet of a chart (not a hook).
type Workload struct {
	Kind, Namespace, Name string
	// Replicas is the chart's (1 when it says none); a DaemonSet has -1.
	Replicas  int64
	PodLabels map[string]string
}

// Ref is the workload as the logs name it.
func (w Workload) Ref() string { return strings.ToLower(w.Kind) + " " + w.Namespace + "/" + w.Name }

// object is the workload in the cluster, as kubectl takes its kind
// (kind.apps) and as the API names it.
func (w Workload) object() lifecycle.Object {
	return lifecycle.Object{Kind: KindRef(w.Kind, "apps"), APIKind: w.Kind, Namespace: w.Namespace, Name: w.Name}
}

// describeWorkload gives check its description: a look at the workload w.
func describeWorkload(w Workload, is string, check assert.Check) assert.Check {
	return assert.NamedOf(assert.Description{Of: w.Ref(), Is: is}, check)
}

// KindRef is a kind as kubectl's command line takes it: kind.group.
func KindRef(kind, group string) string {
	if group == "" {
		return strings.ToLower(kind)
	}
	return strings.ToLower(kind) + "." + group
}

// Available holds when the workload has all its replicas available: the
// chart's count for a Deployment or StatefulSet, every scheduled Pod for a
// DaemonSet.
func Available(w Workload) assert.Check {
	if w.Kind == "DaemonSet" {
		return describeWorkload(w, "available", JSONPathMatches(w.object(), "{.status.numberAvailable}/{.status.numberUnavailable}", "^[1-9][0-9]*/0?$"))
	}
	return describeWorkload(w, "available", JSONPathIs(w.object(), "{.status.availableReplicas}/{.spec.replicas}", fmt.Sprintf("%d/%d", w.Replicas, w.Replicas)))
}

// webhookNamed matches a Pod creation's failure message naming one of the
// webhooks: `admission webhook "x" denied`, `failed calling webhook "x"`.
func webhookNamed(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return `webhook "(` + strings.Join(q, "|") + `)"`
}

// RejectedBy holds when the workload's controller failed to create a Pod
// because one of the webhooks rejected it or could not be called: a
// Deployment's ReplicaFailure condition names it, a StatefulSet's or
// DaemonSet's FailedCreate event does.
func RejectedBy(w Workload, webhooks []string) assert.Check {
	if len(webhooks) == 0 {
		return assert.Constant(false, "no webhook to reject it")
	}
	return rejected(w, "Pods rejected by webhook "+strings.Join(webhooks, " or "), webhookNamed(webhooks))
}

// rejected holds when the workload's controller failed to create a Pod
// with a message matching re (is says what it means).
func rejected(w Workload, is, re string) assert.Check {
	if w.Kind == "Deployment" {
		return describeWorkload(w, is, JSONPathMatches(w.object(),
			`{.status.conditions[?(@.type=="ReplicaFailure")].message}`, re))
	}
	// every FailedCreate event of its kind in the namespace: the line
	// names the workload
	every := w.object()
	every.Name = ""
	return describeWorkload(w, is, EventMatches(every, "FailedCreate", "^"+regexp.QuoteMeta(w.Name)+": .*"+re))
}

// Blocked holds when the workload is not available and its controller's
// Pods are rejected by one of the webhooks.
func Blocked(w Workload, webhooks []string) assert.Check {
	return blocked(w, RejectedBy(w, webhooks), Available(w), "not available")
}

// BlockedUpdate holds when the workload is not up to date (UpToDate: its
// new Pods not all running, as in an upgrade) and its controller's Pods
// are rejected by a webhook, any: which one the message names.
func BlockedUpdate(w Workload) assert.Check {
	return blocked(w, rejected(w, "Pods rejected by a webhook", `webhook "[^"]+"`), UpToDate(w), "not up to date")
}

// blocked holds when available does not and rejected does: the workload's
// Pods rejected by a webhook; not says how it is not available.
func blocked(w Workload, rejected, available assert.Check, not string) assert.Check {
	return describeWorkload(w, not+", its Pods rejected by a webhook", assert.Scripted(func(ctx context.Context) (bool, string, error) {
		up, upSeen, err := available(ctx)
		if err != nil {
			return false, "", err
		}
		if up {
			return false, w.Ref() + " " + strings.TrimPrefix(not, "not "), nil
		}
		no, noSeen, err := rejected(ctx)
		if err != nil {
			return false, "", err
		}
		if !no {
			return false, fmt.Sprintf("%s %s (%s), its Pods not rejected by a webhook", w.Ref(), not, after(upSeen, " = ")), nil
		}
		return true, fmt.Sprintf("%s %s (%s), its Pods rejected: %s", w.Ref(), not, after(upSeen, " = "), after(noSeen, " = ")), nil
	}, func(ctx context.Context) (*repro.Check, error) {
		return repro.All(assert.ScriptOf(ctx, rejected), repro.Not(assert.ScriptOf(ctx, available))), nil
	}))
}

// UnlessBlocked is available, saying while it does not hold what blocks
// it; once blocked has held for certain (the clock is now) the look ends
// the wait that asks it, with an error saying cause ("a webhook of the
// chart blocks the chart's own Pods") and quoting what the cluster gave: a
// workload whose Pods a webhook keeps rejecting does not come up by itself.
func UnlessBlocked(available, blocked assert.Check, cause string, certain time.Duration, now func() time.Time) assert.Check {
	var since time.Time // when the blocking was first seen, zero while none
	unless := assert.Scripted(func(ctx context.Context) (bool, string, error) {
		ok, seen, err := available(ctx)
		if ok || err != nil {
			return ok, seen, err
		}
		no, why, err := blocked(ctx)
		switch {
		case err != nil || !no:
			since = time.Time{}
			return false, seen, nil
		case since.IsZero():
			since = now()
		case now().Sub(since) >= certain:
			return false, seen, &BlockedError{Cause: cause, For: certain, Seen: why}
		}
		return false, seen + "; " + why, nil
	}, func(ctx context.Context) (*repro.Check, error) { return assert.ScriptOf(ctx, available), nil })
	if d, ok := assert.NameOf(available); ok { // it says what available says
		return assert.NamedOf(d, unless)
	}
	return unless
}

// BlockedError ends a wait UnlessBlocked asks: what blocks, for how long,
// and what the cluster said.
type BlockedError struct {
	Cause string
	For   time.Duration
	Seen  string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s, unchanged for %s: %s", e.Cause, e.For, e.Seen)
}

// after is what follows sep in s (a look's value without its jsonpath), or s.
func after(s, sep string) string {
	if _, v, ok := strings.Cut(s, sep); ok {
		return v
	}
	return s
}

// LeftBehind holds when a webhook configuration exists while a Service its
// webhooks call is gone: what the API server then does with the objects
// they match is up to their failurePolicy.
func LeftBehind(webhooks []Webhook) assert.Check {
	byConfig := map[string][]Webhook{}
	var order []string
	for _, w := range webhooks {
		k := w.ConfigRef()
		if _, ok := byConfig[k]; !ok {
			order = append(order, k)
		}
		byConfig[k] = append(byConfig[k], w)
	}
	var left []assert.Check
	for _, k := range order {
		ws := byConfig[k]
		var gone []assert.Check
		var seen []string
		for _, w := range ws {
			if s := w.ClientConfig.Service; s != nil && !slices.Contains(seen, s.Namespace+"/"+s.Name) {
				seen = append(seen, s.Namespace+"/"+s.Name)
				gone = append(gone, Missing(lifecycle.Service(s.Namespace, s.Name)))
			}
		}
		if len(gone) > 0 {
			left = append(left, assert.All(Exists(ws[0].ConfigObject()), assert.Any(gone...)))
		}
	}
	if len(left) == 0 {
		return assert.Constant(false, "no webhook configuration of the chart calls a service in the cluster")
	}
	any := assert.Any(left...)
	return assert.Named("a webhook configuration of the chart left behind, calling a service that is gone", assert.Scripted(func(ctx context.Context) (bool, string, error) {
		ok, _, err := any(ctx)
		if err != nil {
			return false, "", err
		}
		var seen []string
		for _, k := range order {
			ws := byConfig[k]
			there, _, err := Exists(ws[0].ConfigObject())(ctx)
			if err != nil {
				return false, "", err
			}
			state := "gone"
			if there {
				var services []string
				for _, w := range ws {
					if s := w.ClientConfig.Service; s != nil {
						gone, _, err := Missing(lifecycle.Service(s.Namespace, s.Name))(ctx)
						if err != nil {
							return false, "", err
						}
						if sv := map[bool]string{true: "gone", false: "there"}[gone]; !slices.Contains(services, "service "+s.Namespace+"/"+s.Name+" "+sv) {
							services = append(services, "service "+s.Namespace+"/"+s.Name+" "+sv)
						}
					}
				}
				state = "there, calling " + strings.Join(services, ", ")
			}
			seen = append(seen, ws[0].Config+" "+ws[0].ConfigName+" "+state)
		}
		return ok, strings.Join(seen, "; "), nil
	}, func(ctx context.Context) (*repro.Check, error) { return assert.ScriptOf(ctx, any), nil }))
}

// Kept holds when the namespace is there and Active and still holds the
// ConfigMap and Secret put into it before the install.
func Kept(namespace, configMap, secret string) assert.Check {
	return assert.NamedOf(assert.Description{Of: "namespace " + namespace, Is: "Active, holding configmap " + configMap + " and secret " + secret},
		assert.All(JSONPathIs(lifecycle.Namespace(namespace), "{.status.phase}", "Active"),
			Exists(lifecycle.ConfigMap(namespace, configMap)),
			Exists(lifecycle.Secret(namespace, secret))))
}

// HookFinalizer is what ArgoCD puts on the hooks it runs (from 2.14.3 and 3.0).
const HookFinalizer = "argocd.argoproj.io/hook-finalizer"

// HooksKept holds when one of the hooks is being deleted and still carries
// ArgoCD's hook finalizer.
func HooksKept(hooks []lifecycle.Object) assert.Check {
	var kept []assert.Check
	for _, h := range hooks {
		if h.Name == "" {
			continue
		}
		kept = append(kept, FinalizerPending(h, HookFinalizer))
	}
	if len(kept) == 0 {
		return assert.Constant(false, "the chart has no named hook ArgoCD runs at a sync")
	}
	return assert.Named("a hook deleting, held by "+HookFinalizer, assert.Any(kept...))
}

// HeldByHook holds when the Application's sync operation is Running and one
// of the chart's hooks is deleted but kept by ArgoCD's hook finalizer: the
// operation waits for a deletion that waits for the operation.
func HeldByHook(app string, hooks []lifecycle.Object) assert.Check {
	return assert.All(OperationPhaseIs(app, synccommon.OperationRunning), HooksKept(hooks))
}

// PodSelector is a label set as a selector (k=v,...), sorted.
func PodSelector(labels map[string]string) string {
	kv := make([]string, 0, len(labels))
	for k, v := range labels {
		kv = append(kv, k+"="+v)
	}
	slices.Sort(kv)
	return strings.Join(kv, ",")
}

// StatusResource is a resource an Application's status lists, with its
// sync status.
type StatusResource struct {
	Group, Kind, Namespace, Name, Status string
}

// StatusResources are the resources an Application's status lists with
// their sync status (status.resources), read through the dynamic client so
// a look is watched like any other.
func StatusResources(ctx context.Context, app string) ([]StatusResource, error) {
	o, err := Get(ctx, lifecycle.Application(app))
	if err != nil {
		return nil, err
	}
	list, _, _ := unstructured.NestedSlice(o.Object, "status", "resources")
	var out []StatusResource
	for _, item := range list {
		m, _ := item.(map[string]any)
		s := func(k string) string { v, _ := m[k].(string); return v }
		out = append(out, StatusResource{Group: s("group"), Kind: s("kind"), Namespace: s("namespace"), Name: s("name"), Status: s("status")})
	}
	return out, nil
}

// Diff compares an object as a chart renders it with the object live:
// Dropped are the chart's fields the live object lacks (the API server
// dropped them), Differ those whose value differs. metadata is compared in
// its labels and annotations only, status not at all: what the cluster adds
// (defaults, ArgoCD's tracking label, status) is no difference.
func Diff(desired, live map[string]any) (dropped, differ []string) {
	for k, v := range desired {
		switch k {
		case "status", "apiVersion", "kind":
			continue
		case "metadata":
			dm, _ := v.(map[string]any)
			lm, _ := live["metadata"].(map[string]any)
			for _, f := range []string{"labels", "annotations"} {
				if dv, ok := dm[f]; ok {
					walk(".metadata."+f, dv, lm[f], lm != nil && lm[f] != nil, &dropped, &differ)
				}
			}
			continue
		}
		lv, ok := live[k]
		walk("."+k, v, lv, ok, &dropped, &differ)
	}
	slices.Sort(dropped)
	slices.Sort(differ)
	return dropped, differ
}

func walk(path string, desired, live any, present bool, dropped, differ *[]string) {
	if desired == nil {
		return
	}
	if !present {
		*dropped = append(*dropped, path)
		return
	}
	switch d := desired.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			*differ = append(*differ, path)
			return
		}
		for k, v := range d {
			lv, ok := l[k]
			walk(path+"."+k, v, lv, ok, dropped, differ)
		}
	case []any:
		l, ok := live.([]any)
		if !ok {
			*differ = append(*differ, path)
			return
		}
		for i, v := range d {
			if i < len(l) {
				walk(fmt.Sprintf("%s[%d]", path, i), v, l[i], true, dropped, differ)
			} else {
				walk(fmt.Sprintf("%s[%d]", path, i), v, nil, false, dropped, differ)
			}
		}
	default:
		a, _ := json.Marshal(desired)
		b, _ := json.Marshal(live)
		if string(a) != string(b) {
			*differ = append(*differ, path)
		}
	}
}

// Remains says which of the objects are still in the cluster, with their
// ownerReferences (what keeps a cascade's hands off them) and where they
// stand in a deletion. It holds when none is.
func Remains(objects func() []lifecycle.Object) assert.Check {
	return assert.Named("none of the objects there", func(ctx context.Context) (bool, string, error) {
		var left []string
		all := objects()
		for _, o := range all {
			live, err := Get(ctx, o)
			if lifecycle.NotFound(err) {
				continue
			}
			if err != nil {
				return false, "", assert.Unknown(err)
			}
			left = append(left, Remaining(o, live))
		}
		if len(left) == 0 {
			return true, fmt.Sprintf("none of the %d is there", len(all)), nil
		}
		return false, fmt.Sprintf("%d of %d there: %s", len(left), len(all), strings.Join(left, "; ")), nil
	})
}

// Remaining says of an object still there (live) its ownerReferences (what
// keeps a cascade's hands off it) and where it stands in a deletion.
func Remaining(o lifecycle.Object, live *unstructured.Unstructured) string {
	owners := "no ownerReferences"
	if refs := live.GetOwnerReferences(); len(refs) > 0 {
		var o []string
		for _, ref := range refs {
			controller := ref.Controller != nil && *ref.Controller
			o = append(o, fmt.Sprintf("%s %s (controller: %v)", ref.Kind, ref.Name, controller))
		}
		owners = "owned by " + strings.Join(o, ", ")
	}
	state := ""
	if live.GetDeletionTimestamp() != nil {
		state = ", deleting, finalizers [" + strings.Join(live.GetFinalizers(), " ") + "]"
	}
	return lifecycle.Ref(o.Kind, o.Namespace, o.Name) + ": " + owners + state
}

// HookResults says, from the Application's last sync result, each hook's
// phase and message.
func HookResults(app string) assert.Check {
	return describe(lifecycle.Application(app), "hooks in the last sync's result", func(ctx context.Context) (bool, string, error) {
		o, err := Get(ctx, lifecycle.Application(app))
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		list, _, _ := unstructured.NestedSlice(o.Object, "status", "operationState", "syncResult", "resources")
		var hooks []string
		for _, item := range list {
			m, _ := item.(map[string]any)
			s := func(k string) string { v, _ := m[k].(string); return v }
			if s("hookType") == "" {
				continue
			}
			hooks = append(hooks, fmt.Sprintf("%s %s/%s %s %s %q", s("kind"), s("namespace"), s("name"), s("hookType"), cmp.Or(s("hookPhase"), "(no phase)"), s("message")))
		}
		if len(hooks) == 0 {
			return false, "no hook in the last sync's result", nil
		}
		return true, strings.Join(hooks, "; "), nil
	})
}

// MissingImages are the images of want that none of have names, each compared in
// its full form (docker.io/library/ and :latest filled in).
func MissingImages(want, have []string) []string {
	held := map[string]bool{}
	for _, h := range have {
		held[FullImage(h)] = true
	}
	var out []string
	for _, w := range want {
		if !held[FullImage(w)] {
			out = append(out, w)
		}
	}
	return out
}

// FullImage is an image reference with the registry, repository and tag
// Docker fills in: nginx is docker.io/library/nginx:latest.
func FullImage(ref string) string {
	name, digest, hasDigest := strings.Cut(ref, "@")
	first, _, hasSlash := strings.Cut(name, "/")
	if !hasSlash || (!strings.ContainsAny(first, ".:") && first != "localhost") {
		if !hasSlash {
			name = "library/" + name
		}
		name = "docker.io/" + name
	}
	if hasDigest {
		return name + "@" + digest
	}
	if i := strings.LastIndex(name, ":"); i < 0 || strings.Contains(name[i:], "/") {
		name += ":latest"
	}
	return name
}

// UpToDate holds when the workload runs its newest spec, what `kubectl
// rollout status` waits for: its controller has seen its generation, and
// every replica is updated and available (ready, for a StatefulSet), none
// of an older revision left. Available is weaker: in a rolling update the
// old Pods keep a Deployment available while no new one can start.
func UpToDate(w Workload) assert.Check {
	obj := w.object()
	ready := "availableReplicas"
	if w.Kind == "StatefulSet" {
		ready = "readyReplicas"
	}
	return describeWorkload(w, "rolled out, every replica up to date", assert.Scripted(func(ctx context.Context) (bool, string, error) {
		o, err := Get(ctx, obj)
		if err != nil {
			return false, "", assert.Unknown(fmt.Errorf("read %s: %w", w.Ref(), err))
		}
		status := func(field string) int64 {
			n, _, _ := unstructured.NestedInt64(o.Object, "status", field)
			return n
		}
		want, found, _ := unstructured.NestedInt64(o.Object, "spec", "replicas")
		if !found {
			want = 1
		}
		gen, observed := o.GetGeneration(), status("observedGeneration")
		updated, up, all := status("updatedReplicas"), status(ready), status("replicas")
		seen := fmt.Sprintf("%d of %d updated, %d %s, %d in all", updated, want, up, strings.TrimSuffix(ready, "Replicas"), all)
		if observed < gen {
			seen += fmt.Sprintf("; generation %d not yet observed (%d)", gen, observed)
		}
		return observed >= gen && updated == want && up == want && all == want, seen, nil
	}, static(repro.UpToDate(obj.Kind, obj.Namespace, obj.Name))))
}
