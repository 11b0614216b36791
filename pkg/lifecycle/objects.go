package lifecycle

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube"
)

// Get reads an object through the run's client. Any failure is an error, a
// missing object included: the caller decides what a failed read means
// (NotFound tells "not there" from "could not tell").
func Get(ctx context.Context, kind, namespace, name string) (*unstructured.Unstructured, error) {
	return From(ctx).Kube.Get(ctx, kind, namespace, name)
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
