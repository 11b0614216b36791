package verdict

import (
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/upgrade/changes"
)

// causes are the behaviour changes of ArgoCD (pkg/upgrade/changes) that
// explain a reading's differences, each once, in the catalog's order.
type causes []*changes.Change

// add notes c, once (nil: nothing), and says whether there was one: a
// difference a change explains.
func (cs *causes) add(c *changes.Change) bool {
	if c == nil {
		return false
	}
	if !slices.ContainsFunc(*cs, func(x *changes.Change) bool { return x.ID == c.ID }) {
		*cs = append(*cs, c)
		slices.SortStableFunc(*cs, func(x, y *changes.Change) int { return changes.Compare(x.ID, y.ID) })
	}
	return true
}

// String names each change and what keeps the old behaviour, a clause
// each ("explained: id (...)"): the report says one said of several
// Applications once, with their names.
func (cs causes) String() string {
	var out []string
	for _, c := range cs {
		out = append(out, "explained: "+c.Said())
	}
	return strings.Join(out, "; ")
}

// because is " (explained: the change)" where a change of the catalog
// explains d on the upgrade from -> to (noted in cs), else "".
func because(d changes.Difference, from, to string, cs *causes) string {
	if c := changes.Explain(d, from, to); cs.add(c) {
		return " (explained: " + c.Said() + ")"
	}
	return ""
}

// explainRender splits a render's changes into those no change of the
// catalog explains (what is left of each object) and the causes of the
// rest: a field explained is taken out of its object's change, an object
// left with no field is taken out whole.
func explainRender(objs []appstate.ObjectChange, from, to string, cs *causes) []appstate.ObjectChange {
	var rest []appstate.ObjectChange
	for _, o := range objs {
		if o.Added || o.Removed {
			rest = append(rest, o)
			continue
		}
		var fields []appstate.FieldChange
		for _, f := range o.Fields {
			d := changes.Difference{Part: changes.Render, Object: o.Ref, Path: f.Path, From: f.From, To: f.To}
			if !cs.add(changes.Explain(d, from, to)) {
				fields = append(fields, f)
			}
		}
		if len(fields) > 0 {
			o.Fields = fields
			rest = append(rest, o)
		}
	}
	return rest
}

// explainFields splits the status fields gone into those no change
// explains and the causes of the rest.
func explainFields(gone []string, from, to string, cs *causes) []string {
	var rest []string
	for _, f := range gone {
		if !cs.add(changes.Explain(changes.Difference{Part: changes.StatusField, Path: f}, from, to)) {
			rest = append(rest, f)
		}
	}
	return rest
}

// explainHealth is " (explained: ...)" where a resource not Healthy on TO
// is a change's doing (3.2's CronJob health), else "".
func explainHealth(s appstate.State, from, to string, cs *causes) string {
	for _, h := range s.Unhealthy {
		if why := because(changes.Difference{Part: changes.Health, Object: h.Ref, To: h.Status}, from, to, cs); why != "" {
			return why
		}
	}
	return ""
}

// IDs are the changes' ids.
func (cs causes) IDs() []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}
