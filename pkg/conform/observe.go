package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// The looks below say what a cell saw beside its verdict (observations):
// which fields differ, which namespace a webhook selects, what a deletion
// left. They read more than a line of kubectl would, so a reproduction's
// script prints that it does not take them.

// shownPaths bounds the fields one observation names.
const shownPaths = 12

// Diff compares an object as the chart renders it with the object live:
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

// Drift says, for each resource the Application shows OutOfSync, which of
// the chart's fields the live object lacks (dropped by the API server) and
// which differ. It holds when none is OutOfSync.
func Drift(app string, r *Rendered) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		resources, err := applicationResources(ctx, app)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		var lines []string
		for _, res := range resources {
			if res.Status != "OutOfSync" {
				continue
			}
			ref := lifecycle.Ref(KindRef(res.Kind, res.Group), res.Namespace, res.Name)
			desired := r.Find(res.Group, res.Kind, res.Namespace, res.Name)
			if desired == nil {
				lines = append(lines, ref+" OutOfSync: not among the chart's rendered objects")
				continue
			}
			live, err := check.Get(ctx, lifecycle.Object{Kind: KindRef(res.Kind, res.Group), Namespace: res.Namespace, Name: res.Name})
			if lifecycle.NotFound(err) {
				lines = append(lines, ref+" OutOfSync: not in the cluster")
				continue
			}
			if err != nil {
				return false, "", assert.Unknown(err)
			}
			dropped, differ := Diff(desired.Object, live.Object)
			if len(dropped)+len(differ) == 0 {
				lines = append(lines, ref+" OutOfSync: every field of the chart is in the live object as the chart has it (what ArgoCD diffs is a field the cluster or a controller adds that ArgoCD does not ignore)")
				continue
			}
			lines = append(lines, fmt.Sprintf("%s OutOfSync: %d field(s) of the chart the live object lacks (dropped by the API server)%s; %d differ%s",
				ref, len(dropped), listed(dropped), len(differ), listed(differ)))
		}
		if len(lines) == 0 {
			return true, fmt.Sprintf("none of the application's %d resources OutOfSync", len(resources)), nil
		}
		return false, strings.Join(lines, "; "), nil
	}
}

func listed(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	shown := paths[:min(len(paths), shownPaths)]
	more := ""
	if len(paths) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	return ": " + strings.Join(shown, ", ") + more
}

// Selection says, for each of the chart's webhooks, what a failed call does
// (failurePolicy), which namespaces and objects it takes (selectors),
// whether it takes the namespace as it is labelled now, whether it is
// called for the creation of the chart's own Pods there, and which of the
// chart's workloads serve it. It holds when none failing closed is called
// for the chart's own Pods.
func Selection(namespace string, r *Rendered, webhooks func() []check.Webhook) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		ns, err := check.Get(ctx, lifecycle.Object{Kind: "namespace", Name: namespace})
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		labels := ns.GetLabels()
		ws := webhooks()
		if len(ws) == 0 {
			return true, "the chart has no admission webhook", nil
		}
		ok := true
		var lines []string
		for _, w := range ws {
			takes, err := check.Selects(w.NamespaceSelector, labels)
			if err != nil {
				return false, "", err
			}
			own := takes && probeResource(w.Rules) != "" && slices.Contains(podResources(w.Rules), "pods")
			var pods []string
			for _, wl := range r.Workloads() {
				if in, _ := check.Selects(w.ObjectSelector, wl.PodLabels); own && in && wl.Namespace == namespace {
					pods = append(pods, wl.Ref())
				}
			}
			line := fmt.Sprintf("%s (%s %s): failurePolicy %s, namespaceSelector %q, objectSelector %q, takes %s %s: %v, called for the Pods of %s",
				w.Name, w.Config, w.ConfigName, orDefault(w.FailurePolicy, "Fail"), check.SelectorText(w.NamespaceSelector),
				check.SelectorText(w.ObjectSelector), namespace, check.SortedLabels(labels), takes, orNone(pods))
			if s := w.ClientConfig.Service; s != nil {
				line += ", served by service " + s.Namespace + "/" + s.Name
				if svc, found := r.Service(s.Namespace, s.Name); found {
					for _, b := range r.Backing(svc) {
						line += " (" + b.Ref() + ")"
					}
				}
			}
			if len(pods) > 0 && orDefault(w.FailurePolicy, "Fail") == "Fail" {
				ok = false
			}
			lines = append(lines, line)
		}
		return ok, strings.Join(lines, "; "), nil
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Ref names an object as kubectl's command line does: kind (kind.group),
// namespace, name.
type Ref struct{ Kind, Namespace, Name string }

// RefOf is an object's Ref.
func RefOf(o Object) Ref {
	return Ref{Kind: KindRef(o.GetKind(), o.GroupVersionKind().Group), Namespace: o.GetNamespace(), Name: o.GetName()}
}

// Remains says which of the objects are still in the cluster, with their
// ownerReferences (what keeps a cascade's hands off them) and where they
// stand in a deletion. It holds when none is.
func Remains(objects func() []Ref) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		var left []string
		all := objects()
		for _, o := range all {
			live, err := check.Get(ctx, lifecycle.Object{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name})
			if lifecycle.NotFound(err) {
				continue
			}
			if err != nil {
				return false, "", assert.Unknown(err)
			}
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
			left = append(left, lifecycle.Ref(o.Kind, o.Namespace, o.Name)+": "+owners+state)
		}
		if len(left) == 0 {
			return true, fmt.Sprintf("none of the %d is there", len(all)), nil
		}
		return false, fmt.Sprintf("%d of %d there: %s", len(left), len(all), strings.Join(left, "; ")), nil
	}
}

// Refs are the chart's ordinary resources.
func (r *Rendered) Refs() []Ref {
	var out []Ref
	for _, o := range r.Resources() {
		out = append(out, RefOf(o))
	}
	return out
}

// HookResults says, from the Application's last sync result, each hook's
// phase and message.
func HookResults(app string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		o, err := check.Get(ctx, lifecycle.Application(app))
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
			hooks = append(hooks, fmt.Sprintf("%s %s/%s %s %s %q", s("kind"), s("namespace"), s("name"), s("hookType"), orDefault(s("hookPhase"), "(no phase)"), s("message")))
		}
		if len(hooks) == 0 {
			return false, "no hook in the last sync's result", nil
		}
		return true, strings.Join(hooks, "; "), nil
	}
}

// Missing are the images of want that none of have names, each compared in
// its full form (docker.io/library/ and :latest filled in).
func Missing(want, have []string) []string {
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
