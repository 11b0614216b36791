package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Get reads an object with the pinned kubectl (-o output: jsonpath=..., json,
// yaml). Any failure is an error, a missing object included: the caller
// decides what a failed read means.
func Get(ctx context.Context, kind, namespace, name, output string) (string, error) {
	args := []string{"get", kind, name, "-o", output}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	out, err := From(ctx).Kubectl.Run(ctx, args...)
	return strings.TrimSpace(out), err
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
	Metadata struct {
		DeletionTimestamp string   `json:"deletionTimestamp"`
		Finalizers        []string `json:"finalizers"`
	} `json:"metadata"`
}

// GetMeta reads an object's deletion state.
func GetMeta(ctx context.Context, kind, namespace, name string) (*Meta, error) {
	out, err := Get(ctx, kind, namespace, name, "json")
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, fmt.Errorf("read %s: %w", Ref(kind, namespace, name), err)
	}
	return &m, nil
}

// Describe says where an object stands in its deletion.
func (m *Meta) Describe() string {
	s := "live"
	if m.Metadata.DeletionTimestamp != "" {
		s = "deleting since " + m.Metadata.DeletionTimestamp
	}
	return fmt.Sprintf("%s, finalizers [%s]", s, strings.Join(m.Metadata.Finalizers, " "))
}

// NotFound reports whether a failed kubectl read says the object is not there:
// the API server answered NotFound, or serves no such resource type (a CRD
// not installed, or gone). Any other failure is a read that could not tell.
func NotFound(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "(NotFound)") || strings.Contains(msg, "doesn't have a resource type")
}

// Answered reports whether a failed kubectl call carries the API server's
// answer (a rejection: an admission webhook's denial or its failure under
// failurePolicy Fail, a validation error), as opposed to a call that never got
// one (no connection, a timeout, the server or etcd unavailable).
func Answered(err error) bool {
	if err == nil {
		return true
	}
	msg := err.Error()
	if !strings.Contains(msg, "Error from server") {
		return false
	}
	for _, unanswered := range []string{"(Timeout)", "(ServiceUnavailable)", "(TooManyRequests)", "etcdserver:", "context deadline exceeded"} {
		if strings.Contains(msg, unanswered) {
			return false
		}
	}
	return true
}
