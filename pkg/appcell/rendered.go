package appcell

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// Rendered is a chart as ArgoCD applies it: every object of its templates,
// its crds/ and its hooks, namespaced objects without a namespace put into
// the release's (as ArgoCD's destination does).
type Rendered struct {
	Namespace string
	Objects   []Object
}

// Object is one object of a rendered chart.
type Object struct {
	*unstructured.Unstructured
	// Hook is the sync phase ArgoCD runs the object in as a hook (PreSync,
	// Sync, PostSync, SyncFail, from argocd.argoproj.io/hook or the Helm hook
	// ArgoCD maps to one), "" for an ordinary resource, and Skipped for one
	// ArgoCD does not apply at a sync (a Helm test or delete hook, Skip).
	Hook string
}

// Ref names the object as kubectl's command line does: kind.group,
// namespace, name.
func (o Object) Ref() lifecycle.Object {
	return lifecycle.Object{Kind: check.KindRef(o.GetKind(), o.GroupVersionKind().Group), APIKind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
}

// Refs are the objects' refs.
func Refs(objs []Object) []lifecycle.Object {
	var out []lifecycle.Object
	for _, o := range objs {
		out = append(out, o.Ref())
	}
	return out
}

// Refs are the chart's ordinary resources.
func (r *Rendered) Refs() []lifecycle.Object { return Refs(r.Resources()) }

// Skipped is the Hook of an object ArgoCD does not apply at a sync.
const Skipped = "-"

// clusterScoped are the kinds of the API server's own groups that have no
// namespace; a chart's CRD says its kind's scope itself.
var clusterScoped = []string{"Namespace", "Node", "PersistentVolume", "StorageClass", "PriorityClass", "RuntimeClass",
	"ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "APIService", "IngressClass", "CSIDriver",
	"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
	"ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
	"VolumeAttachment", "CertificateSigningRequest", "FlowSchema", "PriorityLevelConfiguration"}

// ParseRendered reads a rendered manifest (helm.RenderAll) of a release
// installed into namespace.
func ParseRendered(manifest, namespace string) (*Rendered, error) {
	objs, err := kube.Decode(manifest)
	if err != nil {
		return nil, err
	}
	r := &Rendered{Namespace: namespace}
	clusterKinds := map[string]bool{}
	for _, k := range clusterScoped {
		clusterKinds[k] = true
	}
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
			scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
			clusterKinds[kind] = scope == "Cluster"
		}
	}
	for _, o := range objs {
		if o.GetKind() == "" || o.GetName() == "" {
			return nil, fmt.Errorf("an object without kind or name (kind %q, name %q)", o.GetKind(), o.GetName())
		}
		if !clusterKinds[o.GetKind()] && o.GetNamespace() == "" {
			o.SetNamespace(namespace)
		}
		r.Objects = append(r.Objects, Object{Unstructured: o, Hook: hookOf(o.GetAnnotations())})
	}
	return r, nil
}

// The phases ArgoCD runs hooks in, as its own annotation names them and as
// it maps Helm's (pre-delete and post-delete from 3.3).
var (
	argoPhases = map[string]string{"PreSync": "PreSync", "Sync": "Sync", "PostSync": "PostSync", "SyncFail": "SyncFail",
		"PreDelete": "PreDelete", "PostDelete": "PostDelete"}
	helmPhases = map[string]string{"pre-install": "PreSync", "pre-upgrade": "PreSync", "post-install": "PostSync",
		"post-upgrade": "PostSync", "pre-delete": "PreDelete", "post-delete": "PostDelete"}
)

// phasesOf is what an object's annotations make it: no hook (false), or a
// hook in these phases, in the annotation's order: its own annotation
// first, else the Helm hook ArgoCD maps. A hook in no phase ArgoCD knows (a
// Helm test, Skip) has none.
func phasesOf(annotations map[string]string) ([]string, bool) {
	value, table := annotations["argocd.argoproj.io/hook"], argoPhases
	if value == "" {
		value, table = annotations["helm.sh/hook"], helmPhases
	}
	if value == "" {
		return nil, false
	}
	var phases []string
	for _, p := range strings.Split(value, ",") {
		if phase := table[strings.TrimSpace(p)]; phase != "" {
			phases = append(phases, phase)
		}
	}
	return phases, true
}

func isDeletion(phase string) bool { return phase == "PreDelete" || phase == "PostDelete" }

// hookOf is the sync phase ArgoCD runs an object with these annotations in
// (see Object.Hook): the first of its phases that is not a deletion's, ""
// for no hook, Skipped for a hook in none.
func hookOf(annotations map[string]string) string {
	phases, hook := phasesOf(annotations)
	if !hook {
		return ""
	}
	for _, p := range phases {
		if !isDeletion(p) {
			return p
		}
	}
	return Skipped
}

// Manifest is the rendered chart as one manifest, namespaces filled in.
func (r *Rendered) Manifest() string {
	docs := make([]string, 0, len(r.Objects))
	for _, o := range r.Objects {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			data = []byte(fmt.Sprintf("# %s %s: %v\n", o.GetKind(), o.GetName(), err))
		}
		docs = append(docs, strings.TrimSpace(string(data)))
	}
	return "---\n" + strings.Join(docs, "\n---\n") + "\n"
}

// Resources are the objects ArgoCD applies as ordinary resources (no hooks).
func (r *Rendered) Resources() []Object {
	var out []Object
	for _, o := range r.Objects {
		if o.Hook == "" {
			out = append(out, o)
		}
	}
	return out
}

// DeletionHook is an object ArgoCD runs when the Application is deleted.
type DeletionHook struct {
	Object
	// Phase is PreDelete or PostDelete.
	Phase string
}

// DeletionHooks are the objects ArgoCD runs as hooks at the Application's
// deletion (from 3.3): argocd.argoproj.io/hook PreDelete or PostDelete, or
// the Helm pre-delete or post-delete hook ArgoCD maps to one.
func (r *Rendered) DeletionHooks() []DeletionHook {
	var out []DeletionHook
	for _, o := range r.Objects {
		if phase := deletionPhase(o.GetAnnotations()); phase != "" {
			out = append(out, DeletionHook{o, phase})
		}
	}
	return out
}

// deletionPhase is the first deletion phase among an object's, or "".
func deletionPhase(annotations map[string]string) string {
	phases, _ := phasesOf(annotations)
	for _, p := range phases {
		if isDeletion(p) {
			return p
		}
	}
	return ""
}

// Hooks are the objects ArgoCD runs as hooks at a sync.
func (r *Rendered) Hooks() []Object {
	var out []Object
	for _, o := range r.Objects {
		if o.Hook != "" && o.Hook != Skipped {
			out = append(out, o)
		}
	}
	return out
}

// Find is the chart's ordinary resource of that group, kind, namespace and
// name, or nil.
func (r *Rendered) Find(group, kind, namespace, name string) *Object {
	for _, o := range r.Resources() {
		if o.GroupVersionKind().Group == group && o.GetKind() == kind && o.GetNamespace() == namespace && o.GetName() == name {
			return &o
		}
	}
	return nil
}

// Workloads are the chart's Deployments, StatefulSets and DaemonSets.
func (r *Rendered) Workloads() []check.Workload {
	var out []check.Workload
	for _, o := range r.Resources() {
		if o.GroupVersionKind().Group != "apps" {
			continue
		}
		w := check.Workload{Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName(), Replicas: 1}
		switch o.GetKind() {
		case "Deployment", "StatefulSet":
			if n, found, _ := unstructured.NestedFieldNoCopy(o.Object, "spec", "replicas"); found {
				w.Replicas = toInt(n)
			}
		case "DaemonSet":
			w.Replicas = -1
		default:
			continue
		}
		w.PodLabels, _, _ = unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "labels")
		out = append(out, w)
	}
	return out
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return 1
}

// Webhooks are the webhooks of the chart's webhook configurations.
func (r *Rendered) Webhooks() ([]check.Webhook, error) {
	var configs []string
	for _, o := range r.Resources() {
		if k := strings.ToLower(o.GetKind()); k == check.ValidatingWebhooks || k == check.MutatingWebhooks {
			data, err := yaml.Marshal(o.Object)
			if err != nil {
				return nil, err
			}
			configs = append(configs, string(data))
		}
	}
	return check.Webhooks(strings.Join(configs, "\n---\n"))
}

// Service is a Service of the chart and the pods it selects.
type Service struct {
	Namespace, Name string
	Selector        map[string]string
}

// Object refers to the Service in the cluster.
func (s Service) Object() lifecycle.Object {
	return env.Service(s.Namespace, s.Name)
}

// Service finds the chart's Service namespace/name.
func (r *Rendered) Service(namespace, name string) (Service, bool) {
	o := r.Find("", "Service", namespace, name)
	if o == nil {
		return Service{}, false
	}
	sel, _, _ := unstructured.NestedStringMap(o.Object, "spec", "selector")
	return Service{Namespace: namespace, Name: name, Selector: sel}, true
}

// Backing are the chart's workloads whose Pods the Service selects.
func (r *Rendered) Backing(s Service) []check.Workload {
	if len(s.Selector) == 0 {
		return nil
	}
	var out []check.Workload
	for _, w := range r.Workloads() {
		if w.Namespace != s.Namespace {
			continue
		}
		selected := true
		for k, v := range s.Selector {
			selected = selected && w.PodLabels[k] == v
		}
		if selected {
			out = append(out, w)
		}
	}
	return out
}

// CRDs are the names (plural.group) of the chart's CustomResourceDefinitions.
func (r *Rendered) CRDs() []string {
	var out []string
	for _, o := range r.Resources() {
		if o.GetKind() == "CustomResourceDefinition" {
			out = append(out, o.GetName())
		}
	}
	return out
}

// Namespaces are the Namespace objects the chart itself renders.
func (r *Rendered) Namespaces() []string {
	var out []string
	for _, o := range r.Resources() {
		if o.GetKind() == "Namespace" && o.GroupVersionKind().Group == "" {
			out = append(out, o.GetName())
		}
	}
	return out
}

// podSpecPaths are where each kind keeps the Pod spec its controller creates Pods from.
var podSpecPaths = map[schema.GroupKind][]string{
	{Kind: "Pod"}:                        {"spec"},
	{Group: "apps", Kind: "Deployment"}:  {"spec", "template", "spec"},
	{Group: "apps", Kind: "StatefulSet"}: {"spec", "template", "spec"},
	{Group: "apps", Kind: "DaemonSet"}:   {"spec", "template", "spec"},
	{Group: "apps", Kind: "ReplicaSet"}:  {"spec", "template", "spec"},
	{Group: "batch", Kind: "Job"}:        {"spec", "template", "spec"},
	{Group: "batch", Kind: "CronJob"}:    {"spec", "jobTemplate", "spec", "template", "spec"},
	{Kind: "ReplicationController"}:      {"spec", "template", "spec"},
}

// Images are the images of every container (init containers too) of the
// chart's Pods and Pod templates, hooks included, each once, sorted.
func (r *Rendered) Images() []string {
	var out []string
	for _, o := range r.Objects {
		if o.Hook == Skipped {
			continue
		}
		path := podSpecPaths[o.GroupVersionKind().GroupKind()]
		if path == nil {
			continue
		}
		for _, field := range []string{"initContainers", "containers"} {
			cs, _, _ := unstructured.NestedSlice(o.Object, append(append([]string{}, path...), field)...)
			for _, c := range cs {
				if m, ok := c.(map[string]any); ok {
					if img, _ := m["image"].(string); img != "" && !slices.Contains(out, img) {
						out = append(out, img)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
