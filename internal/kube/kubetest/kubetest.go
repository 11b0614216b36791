package kubetest

import (
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gitops-conformance/suite/internal/kube"
)

// Kinds are the kinds the fake serves, as discovery would.
var Kinds = []struct {
	GVK        schema.GroupVersionKind
	Namespaced bool
}{
	{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, false},
	{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Event"}, true},
	{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}, true},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
	{schema.GroupVersionKind{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Service"}, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Secret"}, true},
	{schema.GroupVersionKind{Version: "v1", Kind: "Node"}, false},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, true},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, true},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}, false},
	{schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "MutatingWebhookConfiguration"}, false},
	{schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, false},
	{schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Application"}, true},
}

// Client is a kube.Client over a fake API server holding objs; a non-nil
// fail is what it answers to every call instead.
func Client(fail error, objs ...*unstructured.Unstructured) *kube.Client {
	mapper := meta.NewDefaultRESTMapper(nil)
	lists := map[schema.GroupVersionResource]string{}
	for _, k := range Kinds {
		scope := meta.RESTScopeRoot
		if k.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		mapper.Add(k.GVK, scope)
		plural, _ := meta.UnsafeGuessKindToResource(k.GVK)
		lists[plural] = k.GVK.Kind + "List"
	}
	// Each object carries the resourceVersion the fake's tracker stores it
	// at (1 + its place among its kind's objects), as a server's objects
	// do: the tracker keeps versions beside the objects, and since
	// client-go v0.36 (testing/fixture.go, tracker.Watch) a watch from ""
	// starts with every stored object of the resource, so a wait that
	// watches what it read would wake on that replay instead of a change.
	runtimeObjs := make([]runtime.Object, 0, len(objs))
	stored := map[schema.GroupVersionKind]int{}
	for _, o := range objs {
		if stored[o.GroupVersionKind()]++; o.GetResourceVersion() == "" {
			o = o.DeepCopy()
			o.SetResourceVersion(strconv.Itoa(1 + stored[o.GroupVersionKind()]))
		}
		runtimeObjs = append(runtimeObjs, o)
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), lists, runtimeObjs...)
	if fail != nil {
		dyn.PrependReactor("*", "*", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, fail })
	}
	return &kube.Client{Dynamic: dyn, Mapper: mapper}
}

// Object is an object of kind with fields beside its metadata.
func Object(apiVersion, kind, namespace, name string, fields map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": namespace}}}
	for k, v := range fields {
		o.Object[k] = v
	}
	return o
}
