package upgrade

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/report"
)

// shown bounds the changes a verdict's reason names (the evidence has all).
const shown = 8

// Reading is what a cell read of one Application on both sides of the
// upgrade: the verdict's whole input.
type Reading struct {
	From, To string
	// OnFrom, Refreshed and Synced are the states on FROM after its syncs,
	// on TO after the controller's own refresh, on TO after the syncs of the
	// commits pushed (ArgoCD's own where the Application syncs by itself).
	OnFrom, Refreshed, Synced appstate.State
	// Added is what FROM did with the commit pushed on it; Removal and
	// Change, what TO did with those pushed after the upgrade.
	Added, Removal, Change Pushed
	// Revert is, with CHANGE, what TO did with the patch taken out again.
	Revert Pushed
	// DuringFrom and DuringTo are the commits pushed while a sync ran, on
	// each release (DURING_SYNC; none without).
	DuringFrom, DuringTo Trials
	// FieldsFrom and FieldsTo are the fields of the Application's status
	// on each release (appstate.Fields).
	FieldsFrom, FieldsTo []string
	// Changes are how TO's render differs from FROM's.
	Changes []appstate.ObjectChange
	// Hooks are the render's hooks with a fixed name (kind namespace/name):
	// the ones a later sync must run again.
	Hooks []string
	// DelFrom and DelTo are what the cascading deletions did on FROM and on TO.
	DelFrom, DelTo Deletion
}

// Grade is the verdict: ERROR when the Application did not sync on FROM
// (nothing to compare with); BROKEN when on TO a sync fails or stays held,
// the Application stays OutOfSync or is not Healthy, a hook that succeeded
// on FROM is skipped or fails, or the cascading deletion is held (each
// saying whether it was already so on FROM: an upgrade that leaves an
// Application broken is not safe for it, whoever broke it); CHANGED when the
// render, what ArgoCD shows, or what the deletion did changed; SAFE
// otherwise.
func Grade(r Reading) (report.Outcome, string) {
	switch r.OnFrom.Phase {
	case "", "Failed", "Error":
		// no baseline: what the upgrade changes cannot be told
		return report.Error, fmt.Sprintf("could not tell: on %s the Application did not sync (operation %s%s): the check needs it working on FROM",
			r.From, text.OrNone(r.OnFrom.Phase), appstate.MessageOf(r.OnFrom.Message))
	}
	var before []string
	for _, p := range problems(r.OnFrom) {
		before = append(before, p.what)
	}
	var broken []string
	already := " (already so on " + r.From + ")"
	for _, p := range problems(r.Synced) {
		line := p.what + p.detail
		if slices.Contains(before, p.what) {
			line += already
		}
		broken = append(broken, line)
	}
	onFrom := r.Added.problem()
	for _, p := range []Pushed{r.Removal, r.Change, r.Revert} {
		if p := p.problem(); p != "" {
			if onFrom != "" {
				p += " (" + r.From + " did not act on its commit either: " + onFrom + ")"
			}
			broken = append(broken, p)
		}
	}
	if p := r.DuringTo.problem(r.To); p != "" {
		if len(r.DuringFrom) > 0 {
			// a regression, or already so
			p += " (on " + r.From + ": " + r.DuringFrom.String() + ")"
		}
		broken = append(broken, p)
	}
	broken = append(broken, hookRegressions(r.OnFrom, r.Synced, r.Hooks)...)
	if !r.DelTo.Gone {
		p := "the cascading deletion was held: " + r.DelTo.Held
		if !r.DelFrom.Gone {
			p += already
		}
		broken = append(broken, p)
	}
	note := ""
	if left := r.DelTo.LeftSummary(); r.DelTo.Gone && left != "" {
		note = "; the cascade left " + left + " (states.md)"
	}
	if len(broken) > 0 {
		return report.Broken, fmt.Sprintf("on %s: %s%s", r.To, strings.Join(broken, "; "), note)
	}
	var changed []string
	// first: short, and a reason is clipped (run 20261128-082325's render
	// changes left no room for it)
	if s := fieldsGone(r.FieldsFrom, r.FieldsTo, r.From); s != "" {
		changed = append(changed, s)
	}
	if s := renderChanged(r.Changes, ": render-diff.txt"); s != "" {
		changed = append(changed, s)
	}
	if d := appstate.Differences(r.OnFrom, r.Refreshed); len(d) > 0 {
		changed = append(changed, "after its own refresh: "+strings.Join(d, ", "))
	}
	if d := appstate.Differences(r.OnFrom, r.Synced); len(d) > 0 {
		changed = append(changed, "after the syncs: "+strings.Join(d, ", "))
	}
	if r.DuringFrom.problem(r.From) != "" && len(r.DuringTo) > 0 {
		changed = append(changed, "a commit pushed while ArgoCD synced the one before (argo-cd#27875): "+r.trials())
	}
	switch {
	case !r.DelFrom.Gone && r.DelTo.Gone:
		changed = append(changed, fmt.Sprintf("the cascading deletion, held on %s (%s), goes through on %s", r.From, r.DelFrom.Held, r.To))
	case r.DelFrom.Gone && r.DelTo.Gone && r.DelFrom.LeftSummary() != r.DelTo.LeftSummary():
		changed = append(changed, fmt.Sprintf("what the cascading deletion left: %s -> %s", text.OrNone(r.DelFrom.LeftSummary()), text.OrNone(r.DelTo.LeftSummary())))
	}
	if len(changed) > 0 {
		return report.Changed, fmt.Sprintf("%s -> %s: %s%s", r.From, r.To, strings.Join(changed, "; "), note)
	}
	during := ""
	if len(r.DuringTo) > 0 {
		during = "; commits pushed while a sync ran: " + r.trials()
	}
	return report.Safe, fmt.Sprintf("%s -> %s: the same render, the same sync, health and hooks after the controller's own refresh and after the syncs of a removal and a change pushed to git (%s)%s; the cascading deletion goes through on both%s", r.From, r.To, r.Removal.Wanted+", then "+r.Change.Wanted, during, note)
}

// fieldsGone says which fields of the Application's status, held on FROM
// (release), TO no longer holds; "" for none.
func fieldsGone(from, to []string, release string) string {
	gone := appstate.Gone(from, to)
	if len(gone) == 0 {
		return ""
	}
	return fmt.Sprintf("the Application's status no longer holds %d field(s) it held on %s (a tool reading the resource loses them): %s",
		len(gone), release, strings.Join(gone[:min(len(gone), shown)], ", "))
}

// renderChanged says how TO's render differs from FROM's, the first
// objects named and the others counted, rest saying where they are; ""
// for the same render.
func renderChanged(changes []appstate.ObjectChange, rest string) string {
	n := len(changes)
	if n == 0 {
		return ""
	}
	var refs []string
	for _, c := range changes[:min(n, shown)] {
		refs = append(refs, c.String())
	}
	more := ""
	if n > shown {
		more = fmt.Sprintf(" (and %d more%s)", n-shown, rest)
	}
	return fmt.Sprintf("the render: %d object(s) differ: %s%s", n, strings.Join(refs, "; "), more)
}

// trials are DURING_SYNC's counts on both releases, as a verdict says them.
func (r Reading) trials() string {
	return fmt.Sprintf("%s on %s, %s on %s", r.DuringFrom, r.From, r.DuringTo, r.To)
}

// problem is one thing wrong in a state: what (compared between the two
// releases) and its detail (a message that may differ while the problem is
// the same).
type problem struct{ what, detail string }

// problems are what is wrong in a state after a sync, one a resource where
// a resource is at fault (so that one more of them on TO tells from those
// already so on FROM).
func problems(s appstate.State) []problem {
	var out []problem
	switch s.Phase {
	case "Failed", "Error":
		out = append(out, problem{"the sync ended " + s.Phase, appstate.MessageOf(s.Message)})
	case "Running", "Terminating":
		out = append(out, problem{"the sync is still " + s.Phase + " (held)", appstate.MessageOf(s.Message)})
	}
	switch {
	case s.Sync != "Synced" && len(s.OutOfSync) == 0:
		out = append(out, problem{text.OrNone(s.Sync) + " after the sync", ""})
	case s.Sync != "Synced":
		for _, r := range s.OutOfSync {
			out = append(out, problem{"OutOfSync after the sync: " + r, ""})
		}
	}
	switch s.Health {
	case "Degraded", "Missing", "Unknown":
		out = append(out, problem{"health " + s.Health, ""})
	}
	for _, h := range s.Unhealthy {
		if h.Status != "Progressing" {
			out = append(out, problem{"not Healthy: " + h.Ref + ": " + h.Status, appstate.MessageOf(h.Message)})
		}
	}
	return out
}

// hookRegressions are the hooks that ran and succeeded on FROM and, on TO,
// did not run or did not succeed; only hooks of a fixed name (named) are
// compared (a generated name differs at every sync).
func hookRegressions(from, to appstate.State, named []string) []string {
	var out []string
	for _, h := range from.Hooks {
		if h.Phase != "Succeeded" || !slices.Contains(named, h.Ref) {
			continue
		}
		i := slices.IndexFunc(to.Hooks, func(t appstate.Hook) bool { return t.Type == h.Type && t.Ref == h.Ref })
		switch {
		case i < 0:
			out = append(out, fmt.Sprintf("hook %s %s, Succeeded on %s, did not run", h.Type, h.Ref, from.Release))
		case to.Hooks[i].Phase != "Succeeded":
			out = append(out, fmt.Sprintf("hook %s %s, Succeeded on %s, ended %s", h.Type, h.Ref, from.Release, to.Hooks[i]))
		}
	}
	return out
}

// grade is the cell's verdict from what it read (Grade); a state it could
// not read is an error: the run could not tell.
func (k *cell) grade(ctx context.Context) (report.Outcome, string, error) {
	if k.onFrom == nil || k.refreshed == nil || k.synced == nil || k.renderFrom == nil || k.renderTo == nil || !k.delFrom.Read || !k.delTo.Read || k.fieldsFrom == nil || k.fieldsTo == nil {
		return "", "", errors.New("could not tell: a state, the status's fields, a render or a deletion was not read")
	}
	for _, d := range []struct {
		on  catalog.Release
		del Deletion
	}{{k.from, k.delFrom}, {k.to, k.delTo}} {
		if len(d.del.Unread) > 0 {
			return "", "", fmt.Errorf("could not tell what the cascading deletion on %s left: %s", d.on, strings.Join(d.del.Unread, "; "))
		}
	}
	r := Reading{From: k.from.String(), To: k.to.String(), OnFrom: *k.onFrom, Refreshed: *k.refreshed, Synced: *k.synced,
		Changes: k.changes, DelFrom: k.delFrom, DelTo: k.delTo, Added: k.added, Removal: k.removal, Change: k.change, Revert: k.revert,
		DuringFrom: k.duringFrom, DuringTo: k.duringTo,
		FieldsFrom: k.fieldsFrom, FieldsTo: k.fieldsTo}
	if p := k.newest; p != nil {
		for _, h := range p.Hooks() {
			if h.GetName() != "" {
				r.Hooks = append(r.Hooks, appstate.ResourceRef(h.GroupVersionKind().Group, h.GetKind(), h.GetNamespace(), h.GetName()))
			}
		}
	}
	var b strings.Builder
	for _, s := range []struct {
		when  string
		state appstate.State
	}{{"on " + r.From + " after its syncs", r.OnFrom}, {"on " + r.To + " after its own refresh", r.Refreshed}, {"on " + r.To + " after the syncs of the commits pushed", r.Synced}} {
		fmt.Fprintf(&b, "## %s\n%s\n\n", s.when, strings.Join(s.state.Lines(), "\n"))
	}
	for _, d := range []struct {
		on  string
		del Deletion
	}{{r.From, r.DelFrom}, {r.To, r.DelTo}} {
		fmt.Fprintf(&b, "## the cascading deletion on %s\ngone: %v\nheld: %s\nleft: %s\n\n", d.on, d.del.Gone, text.OrNone(d.del.Held), text.OrNone(d.del.Left))
	}
	lifecycle.CellFrom(ctx).WriteEvidence("states.md", b.String())
	o, why := Grade(r)
	return o, why, nil
}
