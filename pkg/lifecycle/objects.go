package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/argocd"
)

// Get reads an object through the run's client. Any failure is an error, a
// missing object included: the caller decides what a failed read means
// (NotFound tells "not there" from "could not tell").
func Get(ctx context.Context, kind, namespace, name string) (*unstructured.Unstructured, error) {
	return From(ctx).Kube.Get(ctx, kind, namespace, name)
}

// Object refers to one object: its kind (as kubectl takes it: a resource,
// plural or singular, or resource.group), its namespace ("" for a
// cluster-scoped one) and its name. Every verb and check takes one instead
// of the three strings; a scenario makes it with pkg/env's constructors
// (env.Job, env.Deployment, ...), which also set APIKind.
type Object struct {
	Kind, Namespace, Name string
	// APIKind is the kind as the API names it (Job, Deployment): what an
	// event's involvedObject.kind says. "" for an Object spelled by hand,
	// whose Kind is then taken as it is.
	APIKind string
}

// Application is the ArgoCD Application of that name as an Object.
func Application(name string) Object {
	return Object{Kind: "applications.argoproj.io", APIKind: "Application", Namespace: argocd.Namespace, Name: name}
}

// Namespace, ConfigMap, Secret and Service are the core objects the looks
// of pkg/check build for themselves (pkg/check is below pkg/env, whose
// constructors of the same names scenarios use and which return these).

// Namespace is the Namespace name.
func Namespace(name string) Object {
	return Object{Kind: "namespace", APIKind: "Namespace", Name: name}
}

// ConfigMap is the ConfigMap namespace/name.
func ConfigMap(namespace, name string) Object {
	return Object{Kind: "configmap", APIKind: "ConfigMap", Namespace: namespace, Name: name}
}

// Secret is the Secret namespace/name.
func Secret(namespace, name string) Object {
	return Object{Kind: "secret", APIKind: "Secret", Namespace: namespace, Name: name}
}

// Service is the Service namespace/name.
func Service(namespace, name string) Object {
	return Object{Kind: "service", APIKind: "Service", Namespace: namespace, Name: name}
}

// KindOf is the object's kind as the API names it: APIKind, or Kind for
// an Object spelled by hand.
func (o Object) KindOf() string {
	if o.APIKind != "" {
		return o.APIKind
	}
	return o.Kind
}

// String names the object as the logs and the evidence do: kind ns/name.
func (o Object) String() string { return Ref(o.Kind, o.Namespace, o.Name) }

// In is the object's namespace as kubectl takes it: "-n ns", or nothing.
func (o Object) In() []string {
	if o.Namespace == "" {
		return nil
	}
	return []string{"-n", o.Namespace}
}

// Selection is the objects of kinds (comma-separated, as kubectl takes
// them) matching a label selector, in a namespace ("" for every namespace or
// a cluster-scoped kind).
type Selection struct{ Kinds, Namespace, Labels string }

// String names the selection as the logs do.
func (s Selection) String() string {
	if s.Namespace == "" {
		return s.Kinds + " -l " + s.Labels
	}
	return s.Kinds + " -n " + s.Namespace + " -l " + s.Labels
}

// Ref names an object as the logs and the evidence do: kind ns/name.
func Ref(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// Meta is the part of an object's metadata the finalizer verbs look at.
type Meta struct {
	DeletionTimestamp string
	Finalizers        []string
}

// GetMeta reads an object's deletion state.
func GetMeta(ctx context.Context, kind, namespace, name string) (*Meta, error) {
	o, err := Get(ctx, kind, namespace, name)
	if err != nil {
		return nil, err
	}
	return MetaOf(o), nil
}

// MetaOf is an object's deletion state.
func MetaOf(o *unstructured.Unstructured) *Meta {
	m := &Meta{Finalizers: o.GetFinalizers()}
	if ts := o.GetDeletionTimestamp(); ts != nil {
		m.DeletionTimestamp = ts.UTC().Format("2006-01-02T15:04:05Z")
	}
	return m
}

// Describe says where an object stands in its deletion.
func (m *Meta) Describe() string {
	s := "live"
	if m.DeletionTimestamp != "" {
		s = "deleting since " + m.DeletionTimestamp
	}
	return fmt.Sprintf("%s, finalizers [%s]", s, strings.Join(m.Finalizers, " "))
}

// NotFound reports whether a failed read says the object is not there (see
// kube.NotFound): any other failure is a read that could not tell.
func NotFound(err error) bool { return kube.NotFound(err) }

// Answered reports whether a failed call carries the API server's answer (see
// kube.Answered), as opposed to a call that never got one.
func Answered(err error) bool { return kube.Answered(err) }
