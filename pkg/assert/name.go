package assert

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Description is what a check holds for, in words: of what (an object as
// the logs name it, "" when it is about several or none) and what about it.
// It names the step that waits for, holds or records the check (Await,
// env.See), the way argo-cd's fixture expectations and e2e-framework's
// Assess names say what they assert: "application argocd/kyverno operation
// Succeeded and health Healthy".
type Description struct {
	Of string // e.g. "application argocd/kyverno", "job kruise-system/kruise-finalizer"
	Is string // e.g. "health Healthy", "gone"
}

// String is the description as a step's name: Of and Is, a space between.
func (d Description) String() string {
	switch {
	case d.Of == "":
		return d.Is
	case d.Is == "":
		return d.Of
	}
	return d.Of + " " + d.Is
}

// Named gives check a description in words: a look of a scenario's own, or
// one whose combination says less than a sentence would. The check is
// unchanged, its bash form in repro.sh included.
func Named(desc string, check Check) Check {
	return NamedOf(Description{Is: desc}, check)
}

// NamedOf gives check its description: of an object, what about it (the
// form pkg/check's looks take, so that All and Any say an object once).
func NamedOf(d Description, check Check) Check {
	return named(check, func() Description { return d })
}

// named answers the naming probe (NameOf) with describe, and is check otherwise.
func named(check Check, describe func() Description) Check {
	return func(ctx context.Context) (bool, string, error) {
		if n, ok := ctx.Value(nameKey{}).(*naming); ok {
			n.d, n.ok = describe(), true
			return false, "", errNamed
		}
		return check(ctx)
	}
}

type nameKey struct{}

type naming struct {
	d  Description
	ok bool
}

var errNamed = errors.New("named, not looked at")

// NameOf is check's description (Named, NamedOf, pkg/check's looks, and
// All, Any and Not of described checks); ok is false for a check that has
// none. It asks the check without looking at the cluster: a check made
// outside pkg/assert and pkg/check (a bare func) would be called, so it is
// asked under a cancelled context and a panic of it reads as no description.
func NameOf(check Check) (d Description, ok bool) {
	n := &naming{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), nameKey{}, n))
	cancel()
	defer func() {
		if recover() != nil {
			d, ok = Description{}, false
		}
	}()
	if _, _, err := check(ctx); !errors.Is(err, errNamed) || !n.ok {
		return Description{}, false
	}
	return n.d, true
}

// nameOf is check's description for a step's name; a check without one is
// a mistake of the scenario, caught when its steps are built (every cell's
// are, in a unit test).
func nameOf(verb string, check Check) string {
	d, ok := NameOf(check)
	if !ok || d.String() == "" {
		panic(fmt.Sprintf("assert.%s: a check without a description: give it one with assert.Named", verb))
	}
	return d.String()
}

// compose describes checks joined by a conjunction ("and", "or"): a run of
// checks about one object names it once ("application argocd/x operation
// Succeeded and health Healthy"). A check without a description reads as
// "(a look)"; the whole has one only when each part has.
func compose(conj string, checks []Check) (Description, bool) {
	type group struct {
		of string
		is []string
	}
	var groups []group
	for _, c := range checks {
		d, ok := NameOf(c)
		if !ok {
			return Description{}, false
		}
		if last := len(groups) - 1; last >= 0 && groups[last].of == d.Of && d.Of != "" {
			groups[last].is = append(groups[last].is, d.Is)
			continue
		}
		groups = append(groups, group{of: d.Of, is: []string{d.Is}})
	}
	if len(groups) == 1 {
		return Description{Of: groups[0].of, Is: strings.Join(groups[0].is, " "+conj+" ")}, true
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = Description{Of: g.of, Is: strings.Join(g.is, " "+conj+" ")}.String()
	}
	return Description{Is: strings.Join(parts, ", "+conj+" ")}, true
}
