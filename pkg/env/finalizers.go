package env

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
)

// meta is the part of an object's metadata the finalizer verbs look at.
type meta struct {
	Metadata struct {
		DeletionTimestamp string   `json:"deletionTimestamp"`
		Finalizers        []string `json:"finalizers"`
	} `json:"metadata"`
}

func getMeta(ctx context.Context, kind, namespace, name string) (*meta, error) {
	out, err := get(ctx, kind, namespace, name, "json")
	if err != nil {
		return nil, err
	}
	var m meta
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, fmt.Errorf("read %s: %w", ref(kind, namespace, name), err)
	}
	return &m, nil
}

// describe says where an object stands in its deletion.
func (m *meta) describe() string {
	s := "live"
	if m.Metadata.DeletionTimestamp != "" {
		s = "deleting since " + m.Metadata.DeletionTimestamp
	}
	return fmt.Sprintf("%s, finalizers [%s]", s, strings.Join(m.Metadata.Finalizers, " "))
}

// FinalizerPending holds when the object is being deleted (it has a
// deletionTimestamp) and still carries finalizer: a deletion held up by it.
func FinalizerPending(kind, namespace, name, finalizer string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		m, err := getMeta(ctx, kind, namespace, name)
		if err != nil {
			return false, ref(kind, namespace, name) + " not found", nil
		}
		ok := m.Metadata.DeletionTimestamp != "" && slices.Contains(m.Metadata.Finalizers, finalizer)
		return ok, ref(kind, namespace, name) + " " + m.describe(), nil
	}
}

// RemoveFinalizer removes one finalizer from an object, as an operator would
// by hand (kubectl patch); an object that is gone or lacks it is left alone.
// What it found goes into the cell's observations.
func RemoveFinalizer(kind, namespace, name, finalizer string) features.Func {
	return assert.Step("remove finalizer "+finalizer+" from "+ref(kind, namespace, name), func(ctx context.Context) error {
		return removeFinalizer(ctx, kind, namespace, name, finalizer)
	})
}

// RemoveFinalizerAtEnd removes finalizer from the object, if it is there, when
// the cell ends: registered after the Application, it runs before the
// Application's deletion, which the finalizer would hold.
func RemoveFinalizerAtEnd(kind, namespace, name, finalizer string) features.Func {
	what := "finalizer " + finalizer + " of " + ref(kind, namespace, name)
	return assert.Step("at the end, remove "+what, func(ctx context.Context) error {
		c := CellFrom(ctx)
		c.Step("at the end, remove %s", what)
		c.Defer("remove "+what, func(ctx context.Context) error {
			return removeFinalizer(ctx, kind, namespace, name, finalizer)
		})
		return nil
	})
}

func removeFinalizer(ctx context.Context, kind, namespace, name, finalizer string) error {
	m, err := getMeta(ctx, kind, namespace, name)
	if err != nil {
		observe(ctx, "%s: not found, nothing to remove", ref(kind, namespace, name))
		return nil
	}
	i := slices.Index(m.Metadata.Finalizers, finalizer)
	if i < 0 {
		observe(ctx, "%s: %s; no %s to remove", ref(kind, namespace, name), m.describe(), finalizer)
		return nil
	}
	// test-then-remove: the patch fails instead of removing another finalizer if the list moved
	patch := fmt.Sprintf(`[{"op":"test","path":"/metadata/finalizers/%d","value":%q},{"op":"remove","path":"/metadata/finalizers/%d"}]`, i, finalizer, i)
	args := []string{"patch", kind, name, "--type=json", "-p", patch}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	if _, err := From(ctx).Kubectl.Run(ctx, args...); err != nil {
		return err
	}
	observe(ctx, "%s: was %s; removed %s by hand (kubectl %s)", ref(kind, namespace, name), m.describe(), finalizer, strings.Join(args, " "))
	return nil
}
