package appcell

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/pkg/appcell/appcelltest"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// A chart with a CRD in crds/, a Namespace, a Deployment behind a Service
// its webhook calls, a DaemonSet, a post-upgrade hook, a test hook and a CR
// of its own cluster-scoped kind.
var chartTemplates = map[string]string{
	"deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: manager}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: manager}}
  template:
    metadata: {labels: {app: manager, tier: control}}
    spec:
      initContainers: [{name: init, image: busybox}]
      containers: [{name: m, image: "example.com/manager:v1"}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: daemon, namespace: elsewhere}
spec:
  selector: {matchLabels: {app: daemon}}
  template:
    metadata: {labels: {app: daemon}}
    spec: {containers: [{name: d, image: "example.com/manager:v1"}]}
---
apiVersion: v1
kind: Service
metadata: {name: webhook}
spec: {selector: {app: manager}, ports: [{port: 443}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: extra-ns}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
`,
	"webhook.yaml": `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: chart-webhooks}
webhooks:
- name: pods.example.com
  failurePolicy: Fail
  clientConfig: {service: {name: webhook, namespace: {{ .Release.Namespace }}}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}]
`,
	"hooks.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: clean
  annotations: {helm.sh/hook: post-upgrade, helm.sh/hook-delete-policy: hook-succeeded}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: k, image: "bitnami/kubectl:1.30"}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: test
  annotations: {helm.sh/hook: test}
spec: {containers: [{name: t, image: "only-for-tests:1"}]}
`,
}

const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`

func renderTestChart(t *testing.T) *Rendered {
	t.Helper()
	dir := t.TempDir()
	root := appcelltest.WriteChart(t, dir, "c", "c", "1.0.0", chartTemplates)
	if err := os.MkdirAll(filepath.Join(root, "crds"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "crds", "widgets.yaml"), []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	return render(t, root, "rel", "team")
}

// render renders the chart at dir as release into namespace.
func render(t *testing.T, dir, release, namespace string) *Rendered {
	t.Helper()
	c, err := LocalChart(dir, "", "", "/", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := helm.RenderAll(context.Background(), helm.Release{Name: release, Namespace: namespace, Chart: c.Dir, Values: map[string]any{}, KubeVersion: "v1.33.13"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRendered(manifest, namespace)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRenderedAsArgoCDAppliesIt(t *testing.T) {
	r := renderTestChart(t)
	var kinds []string
	for _, o := range r.Objects {
		kinds = append(kinds, o.GetKind()+"/"+o.GetNamespace()+"/"+o.GetName()+":"+o.Hook)
	}
	for _, want := range []string{
		"CustomResourceDefinition//widgets.example.com:", // crds/ included, cluster-scoped
		"Deployment/team/manager:",                       // the release's namespace filled in
		"DaemonSet/elsewhere/daemon:",                    // a namespace the chart names is kept
		"Namespace//extra-ns:", "Widget//w:",             // the chart's CRD says its kind is cluster-scoped
		"ValidatingWebhookConfiguration//chart-webhooks:",
		"Job/team/clean:PostSync",  // a Helm hook ArgoCD maps
		"Pod/team/test:" + Skipped, // a Helm test hook ArgoCD does not apply
	} {
		if !slices.Contains(kinds, want) {
			t.Errorf("no %s among %v", want, kinds)
		}
	}
	if h := r.Hooks(); len(h) != 1 || h[0].GetName() != "clean" {
		t.Errorf("hooks: %v", h)
	}
	w := r.Workloads() // in Helm's install order: DaemonSet before Deployment
	if len(w) != 2 || w[1].Ref() != "deployment team/manager" || w[1].Replicas != 1 || w[1].PodLabels["tier"] != "control" || w[0].Replicas != -1 {
		t.Errorf("workloads: %+v", w)
	}
	svc, ok := r.Service("team", "webhook")
	if b := r.Backing(svc); !ok || len(b) != 1 || b[0].Name != "manager" {
		t.Errorf("the service's backing workloads: %v %+v", ok, b)
	}
	webhooks, err := r.Webhooks()
	if err != nil || len(webhooks) != 1 || webhooks[0].ClientConfig.Service.Namespace != "team" {
		t.Errorf("webhooks: %+v, %v", webhooks, err)
	}
	if got := strings.Join(r.Images(), " "); got != "bitnami/kubectl:1.30 busybox example.com/manager:v1" {
		t.Errorf("images (hooks too, init containers too, test hooks not): %s", got)
	}
	if got := r.CRDs(); len(got) != 1 || got[0] != "widgets.example.com" {
		t.Errorf("CRDs: %v", got)
	}
	if got := r.Namespaces(); len(got) != 1 || got[0] != "extra-ns" {
		t.Errorf("namespaces: %v", got)
	}
	if refs := r.Refs(); !slices.Contains(refs, lifecycle.Object{Kind: "deployment.apps", APIKind: "Deployment", Namespace: "team", Name: "manager"}) ||
		!slices.Contains(refs, lifecycle.Object{Kind: "customresourcedefinition.apiextensions.k8s.io", APIKind: "CustomResourceDefinition", Name: "widgets.example.com"}) {
		t.Errorf("refs: %v", refs)
	}
	again, err := ParseRendered(r.Manifest(), "team")
	if err != nil || len(again.Objects) != len(r.Objects) {
		t.Errorf("the manifest reads back: %v (%d objects)", err, len(again.Objects))
	}
}

func TestHookOf(t *testing.T) {
	for _, tt := range []struct {
		annotations map[string]string
		want        string
	}{
		{nil, ""},
		{map[string]string{"helm.sh/hook": "pre-install,pre-upgrade"}, "PreSync"},
		{map[string]string{"helm.sh/hook": "post-install"}, "PostSync"},
		{map[string]string{"helm.sh/hook": "pre-delete"}, Skipped},
		// a deletion phase beside a sync phase: the sync phase
		{map[string]string{"helm.sh/hook": "pre-delete,post-install"}, "PostSync"},
		{map[string]string{"helm.sh/hook": "test-success"}, Skipped},
		{map[string]string{"argocd.argoproj.io/hook": "Sync"}, "Sync"},
		{map[string]string{"argocd.argoproj.io/hook": "Skip"}, Skipped},
		// ArgoCD's own annotation wins over Helm's
		{map[string]string{"argocd.argoproj.io/hook": "PreSync", "helm.sh/hook": "post-install"}, "PreSync"},
	} {
		if got := hookOf(tt.annotations); got != tt.want {
			t.Errorf("hookOf(%v) = %q, want %q", tt.annotations, got, tt.want)
		}
	}
}

// The suite's clean chart (fixtures/charts/conform-clean) has one of each
// part the checks look at, each written the way that avoids its class.
func TestTheCleanChart(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	r := render(t, filepath.Join(repo, "fixtures/charts/conform-clean"), "conform-clean", "clean")
	webhooks, err := r.Webhooks()
	if err != nil || len(webhooks) != 1 || len(r.CRDs()) != 1 || len(r.Hooks()) != 1 || len(r.Workloads()) != 1 || len(r.Namespaces()) != 0 {
		t.Fatalf("the clean chart: %d webhooks (%v), %d CRDs, %d hooks, %d workloads, namespaces %v",
			len(webhooks), err, len(r.CRDs()), len(r.Hooks()), len(r.Workloads()), r.Namespaces())
	}
	w := webhooks[0]
	own, _ := check.Selects(w.NamespaceSelector, map[string]string{"kubernetes.io/metadata.name": "clean"})
	other, _ := check.Selects(w.NamespaceSelector, map[string]string{"kubernetes.io/metadata.name": "default"})
	if own || !other || w.FailurePolicy != "Fail" {
		t.Errorf("its webhook fails closed and leaves out its own namespace: takes clean %v, default %v, %+v", own, other, w)
	}
	svc, ok := r.Service(w.ClientConfig.Service.Namespace, w.ClientConfig.Service.Name)
	if b := r.Backing(svc); !ok || len(b) != 1 {
		t.Errorf("its webhook's service selects its controller: %v %v", ok, b)
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := "registry.k8s.io/etcd:" + strings.TrimPrefix(cat.Kubernetes.DefaultVersion().Etcd, "v") + "-0"
	if !slices.Contains(r.Images(), want) {
		t.Errorf("the hook runs kubeadm's etcd image of the catalog's Kubernetes, %s: %v", want, r.Images())
	}
}

// The hooks ArgoCD runs at an Application's deletion: its own annotation
// first, else the Helm hook it maps (3.3 on); a sync hook is none.
func TestDeletionHooks(t *testing.T) {
	obj := func(name string, annotations map[string]string) Object {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "batch/v1", "kind": "Job"}}
		u.SetName(name)
		u.SetAnnotations(annotations)
		return Object{Unstructured: u, Hook: hookOf(annotations)}
	}
	r := Rendered{Objects: []Object{
		obj("guard", map[string]string{"helm.sh/hook": "pre-delete", "helm.sh/hook-weight": "4"}),
		obj("after", map[string]string{"helm.sh/hook": "post-install,post-delete"}),
		obj("argo", map[string]string{"argocd.argoproj.io/hook": "PostDelete"}),
		obj("override", map[string]string{"argocd.argoproj.io/hook": "PostSync", "helm.sh/hook": "pre-delete"}),
		obj("sync", map[string]string{"helm.sh/hook": "pre-install"}),
		obj("plain", nil),
	}}
	var got []string
	for _, h := range r.DeletionHooks() {
		got = append(got, h.GetName()+" "+h.Phase)
	}
	if want := []string{"guard PreDelete", "after PostDelete", "argo PostDelete"}; !slices.Equal(got, want) {
		t.Errorf("DeletionHooks = %q, want %q", got, want)
	}
}
