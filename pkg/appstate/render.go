package appstate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/text"
)

// ObjectChange is how one object of a render differs between two releases'
// renders: added, removed, or its fields.
type ObjectChange struct {
	Ref            string // group/kind namespace/name
	Added, Removed bool
	Fields         []FieldChange
}

// FieldChange is one field that differs: its path and both values (JSON;
// "" where a render lacks it).
type FieldChange struct {
	Path     string
	From, To string
}

func (f FieldChange) String() string {
	return fmt.Sprintf("%s: %s -> %s", f.Path, orAbsent(f.From), orAbsent(f.To))
}

func (c ObjectChange) String() string {
	switch {
	case c.Added:
		return c.Ref + ": only in the new render"
	case c.Removed:
		return c.Ref + ": only in the old render"
	}
	var fs []string
	for _, f := range c.Fields {
		fs = append(fs, f.String())
	}
	return c.Ref + ": " + strings.Join(fs, "; ")
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return text.Clip(s, 80)
}

// Ref names an object of a render: group/kind namespace/name (the group
// left out for the core API).
func Ref(o *unstructured.Unstructured) string {
	gk := o.GroupVersionKind().GroupKind()
	kind := gk.Kind
	if gk.Group != "" {
		kind = gk.Group + "/" + gk.Kind
	}
	name := o.GetName()
	if ns := o.GetNamespace(); ns != "" {
		name = ns + "/" + name
	}
	return kind + " " + name
}

// Compare compares two renders of one Application object by object (by
// group, kind, namespace and name: a changed apiVersion of the same group
// is a field change) and field by field, in a stable order.
func Compare(from, to []*unstructured.Unstructured) []ObjectChange {
	index := func(objs []*unstructured.Unstructured) map[string]*unstructured.Unstructured {
		m := map[string]*unstructured.Unstructured{}
		for _, o := range objs {
			m[Ref(o)] = o
		}
		return m
	}
	a, b := index(from), index(to)
	var refs []string
	for r := range a {
		refs = append(refs, r)
	}
	for r := range b {
		if _, ok := a[r]; !ok {
			refs = append(refs, r)
		}
	}
	slices.Sort(refs)
	var out []ObjectChange
	for _, r := range refs {
		x, inA := a[r]
		y, inB := b[r]
		switch {
		case !inA:
			out = append(out, ObjectChange{Ref: r, Added: true})
		case !inB:
			out = append(out, ObjectChange{Ref: r, Removed: true})
		default:
			var fields []FieldChange
			diff("", x.Object, y.Object, &fields)
			if len(fields) > 0 {
				out = append(out, ObjectChange{Ref: r, Fields: fields})
			}
		}
	}
	return out
}

// diff walks two values, adding a FieldChange for each leaf (or whole
// value, where their shapes differ) that differs.
func diff(path string, a, b any, out *[]FieldChange) {
	am, aMap := a.(map[string]any)
	bm, bMap := b.(map[string]any)
	if aMap && bMap {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			diff(path+"."+k, am[k], bm[k], out)
		}
		return
	}
	al, aList := a.([]any)
	bl, bList := b.([]any)
	if aList && bList && len(al) == len(bl) {
		for i := range al {
			diff(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i], out)
		}
		return
	}
	x, y := jsonOf(a), jsonOf(b)
	if x != y {
		*out = append(*out, FieldChange{Path: path, From: x, To: y})
	}
}

func jsonOf(v any) string {
	if v == nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
