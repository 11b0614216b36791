package upgrade

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/verdict"
)

// shown bounds the names a reason lists (the evidence has all).
const shown = verdict.Shown

// reading is what the cell read of its Application, as the verdict takes
// it: FROM's state after its syncs is both its settled state and its
// baseline after a sync asked; a part the cell did not come to read is
// unread on its side (could not tell).
func (k *cell) reading() verdict.Reading {
	from := &verdict.Side{Release: k.from.String(), Rendered: k.renderFrom != nil, Settled: k.onFrom, Synced: k.onFrom, Fields: k.fieldsFrom,
		Pushes: []string{k.added.problem()}, Trials: k.duringFrom.verdict(k.from.String()), Deletion: k.delFrom.verdict()}
	to := &verdict.Side{Release: k.to.String(), Rendered: k.renderTo != nil, Settled: k.refreshed, Synced: k.synced, Fields: k.fieldsTo,
		Pushes: []string{k.removal.problem(), k.change.problem(), k.revert.problem()}, Wanted: k.removal.Wanted + ", then " + k.change.Wanted,
		Trials: k.duringTo.verdict(k.to.String()), Deletion: k.delTo.verdict()}
	if k.renderTo != nil {
		to.Objects = len(k.renderTo.Objects)
	}
	for _, s := range []struct {
		side   *verdict.Side
		states bool
	}{{from, k.onFrom != nil}, {to, k.refreshed != nil && k.synced != nil}} {
		var missing []string
		if !s.states {
			missing = append(missing, "a state")
		}
		if s.side.Fields == nil {
			missing = append(missing, "the status's fields")
		}
		if !s.side.Rendered {
			missing = append(missing, "the render")
		}
		if len(missing) > 0 {
			s.side.Unread = strings.Join(missing, ", ") + " not read"
		}
	}
	r := verdict.Reading{From: from, To: to, Changes: k.changes, ChangesIn: ": render-diff.txt", States: "states.md"}
	if p := k.newest; p != nil {
		r.Hooks, to.InGit = namedHooks(p), inGit(p)
	}
	return r
}

// grade is the cell's verdict from what it read (verdict.Grade), the
// states it was given written to states.md first.
func (k *cell) grade(ctx context.Context) (report.Outcome, string, error) {
	r := k.reading()
	var b strings.Builder
	for _, s := range []struct {
		when  string
		state *appstate.State
	}{{"on " + r.From.Release + " after its syncs", k.onFrom}, {"on " + r.To.Release + " after its own refresh", k.refreshed}, {"on " + r.To.Release + " after the syncs of the commits pushed", k.synced}} {
		if s.state != nil {
			fmt.Fprintf(&b, "## %s\n%s\n\n", s.when, strings.Join(s.state.Lines(), "\n"))
		}
	}
	for _, d := range []struct {
		on  string
		del Deletion
	}{{r.From.Release, k.delFrom}, {r.To.Release, k.delTo}} {
		fmt.Fprintf(&b, "## the cascading deletion on %s\ngone: %v\nheld: %s\nleft: %s%s\n\n", d.on, d.del.Gone, text.OrNone(d.del.Held), text.OrNone(d.del.Left), d.del.unread())
	}
	lifecycle.CellFrom(ctx).WriteEvidence("states.md", b.String())
	o, why := verdict.Grade(r)
	return o, why, nil
}

// verdict is the deletion as the verdict reads it; one never recorded
// could not be told.
func (d Deletion) verdict() *verdict.Deletion {
	if !d.Read {
		return &verdict.Deletion{Unread: []string{"not recorded"}}
	}
	return &verdict.Deletion{Gone: d.Gone, Held: d.Held, Left: d.LeftSummary(), Unread: d.Unread}
}

// verdict is a release's trials as the verdict reads them; nil for none.
func (ts Trials) verdict(on string) *verdict.Trials {
	if len(ts) == 0 {
		return nil
	}
	return &verdict.Trials{Problem: ts.problem(on), Tally: ts.String()}
}

// inGit are a render's resources (its hooks left out) by ref, as the
// Application's status.resources names them.
func inGit(r *appcell.Rendered) []string {
	out := []string{}
	for _, o := range r.Resources() {
		out = append(out, appstate.Ref(o.Unstructured))
	}
	return out
}

// namedHooks are the hooks of a render with a fixed name (verdict's
// Reading.Hooks): the ones a sync on TO must run again.
func namedHooks(r *appcell.Rendered) []string {
	var out []string
	for _, h := range r.Hooks() {
		if h.GetName() != "" {
			out = append(out, appstate.ResourceRef(h.GroupVersionKind().Group, h.GetKind(), h.GetNamespace(), h.GetName()))
		}
	}
	return out
}
