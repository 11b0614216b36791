package cell

import (
	"context"
	"fmt"
	"strings"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/verdict"
)

// Reading is what the cell read of its Application, as the verdict takes
// it: FROM's state after its syncs is both its settled state and its
// baseline after a sync asked; a part the cell did not come to read is
// Unread on its side (could not tell).
func (o *Observed) Reading() verdict.Reading {
	from := &verdict.Side{Release: o.From.String(), Rendered: o.RenderFrom != nil, Settled: o.OnFrom, Synced: o.OnFrom, Fields: o.FieldsFrom,
		Pushes: []string{o.Added.problem()}, Trials: o.DuringFrom.verdict(o.From.String()), Deletion: o.DelFrom.Verdict()}
	to := &verdict.Side{Release: o.To.String(), Rendered: o.RenderTo != nil, Settled: o.Refreshed, Synced: o.Synced, Fields: o.FieldsTo,
		Pushes: []string{o.Removal.problem(), o.Change.problem(), o.Revert.problem()}, Wanted: o.Removal.Wanted + ", then " + o.Change.Wanted,
		Trials: o.DuringTo.verdict(o.To.String()), Deletion: o.DelTo.Verdict()}
	if o.RenderTo != nil {
		to.Objects = len(o.RenderTo.Objects)
	}
	for _, s := range []struct {
		side   *verdict.Side
		states bool
	}{{from, o.OnFrom != nil}, {to, o.Refreshed != nil && o.Synced != nil}} {
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
	r := verdict.Reading{From: from, To: to, Changes: o.Changes, ChangesIn: ": render-diff.txt", States: "states.md"}
	if p := o.Newest; p != nil {
		r.Hooks, to.InGit = NamedHooks(p), InGit(p)
	}
	return r
}

// grade is the cell's verdict from what it read (verdict.Grade), the
// states it was given written to states.md first.
func (k *cell) grade(ctx context.Context) (report.Outcome, string, error) {
	r := k.Reading()
	var b strings.Builder
	for _, s := range []struct {
		when  string
		state *appstate.State
	}{{"on " + r.From.Release + " after its syncs", k.OnFrom}, {"on " + r.To.Release + " after its own refresh", k.Refreshed}, {"on " + r.To.Release + " after the syncs of the commits pushed", k.Synced}} {
		if s.state != nil {
			fmt.Fprintf(&b, "## %s\n%s\n\n", s.when, strings.Join(s.state.Lines(), "\n"))
		}
	}
	for _, d := range []struct {
		on  string
		del Deletion
	}{{r.From.Release, k.DelFrom}, {r.To.Release, k.DelTo}} {
		fmt.Fprintf(&b, "## the cascading deletion on %s\ngone: %v\nheld: %s\nleft: %s%s\n\n", d.on, d.del.Gone, text.OrNone(d.del.Held), text.OrNone(d.del.Left), d.del.UnreadSaid())
	}
	lifecycle.CellFrom(ctx).WriteEvidence("states.md", b.String())
	v := verdict.Judge(r)
	assert.RecordFrom(ctx).Explain(assert.Explanation{IDs: v.Explained, Unexplained: v.Unexplained})
	return v.Outcome, v.Reason, nil
}

// Verdict is the deletion as the verdict reads it; one never recorded
// could not be told.
func (d Deletion) Verdict() *verdict.Deletion {
	if !d.Read {
		return &verdict.Deletion{Unread: []string{"not recorded"}}
	}
	return &verdict.Deletion{Gone: d.Gone, Held: d.Held, Left: d.LeftSummary(), Unread: d.Unread}
}

// Verdict is a release's trials as the verdict reads them; nil for none.
func (ts Trials) verdict(on string) *verdict.Trials {
	if len(ts) == 0 {
		return nil
	}
	return &verdict.Trials{Problem: ts.problem(on), Tally: ts.String()}
}

// InGit are a render's resources (its hooks left out) by ref, as the
// Application's status.resources names them.
func InGit(r *appcell.Rendered) []string {
	out := []string{}
	for _, o := range r.Resources() {
		out = append(out, appstate.Ref(o.Unstructured))
	}
	return out
}

// NamedHooks are the hooks of a render with a fixed name (verdict's
// Reading.Hooks): the ones a sync on TO must run again.
func NamedHooks(r *appcell.Rendered) []string {
	var out []string
	for _, h := range r.Hooks() {
		if h.GetName() != "" {
			out = append(out, appstate.ResourceRef(h.GroupVersionKind().Group, h.GetKind(), h.GetNamespace(), h.GetName()))
		}
	}
	return out
}
