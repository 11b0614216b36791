package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/changes"
)

// Shown bounds the names a verdict's reason lists (the evidence has all).
const Shown = 8

// Reading is what was read of one Application through the upgrade: the
// verdict's whole input.
type Reading struct {
	// From and To are the two releases' sides; nil: the Application was
	// not there on that release (a generator made it on one only).
	From, To *Side
	// By is what made the Application: "APPS", an ApplicationSet, an
	// app-of-apps parent; "" for a cell's own.
	By string
	// Changes are how TO's render differs from FROM's, and ChangesIn where
	// the evidence holds them all (": render-diff.txt").
	Changes   []appstate.ObjectChange
	ChangesIn string
	// Generated says how the generator's spec of the Application differs
	// on TO ("" for the same, or none generated).
	Generated string
	// Hooks are the render's hooks with a fixed name (kind namespace/name),
	// the ones a later sync must run again: a generated name differs at
	// every sync.
	Hooks []string
	// States is the evidence file that holds the states read ("" none).
	States string
}

// Side is what was read of the Application on one release.
type Side struct {
	Release string
	// Unread says why the render or the state could not be read.
	Unread string
	// Rendered says the repo server gave a render, of Objects objects.
	Rendered bool
	Objects  int
	// Settled is the state once the controller compared it by itself (and
	// synced it, where it syncs by itself), nothing asked.
	Settled *appstate.State
	// Synced is the state after a sync asked (the cell's syncs, the
	// lifecycle tier's); SyncUnread says why it could not be asked or read,
	// Waited what the sync was still doing when the wait for it ended.
	Synced     *appstate.State
	SyncUnread string
	Waited     string
	// Fields are the Application's status fields (appstate.Fields).
	Fields []string
	// InGit are the render's resources (not its hooks), by ref: what the
	// team keeps in git for ArgoCD to manage; nil, not read.
	InGit []string
	// Pushes say, of each commit pushed to the source, what ArgoCD did not
	// do with it ("" where it did what was wanted); Wanted is what was
	// wanted of them, as the SAFE verdict says it.
	Pushes []string
	Wanted string
	// Trials are the commits pushed while a sync ran (DURING_SYNC).
	Trials *Trials
	// Deletion is what the cascading deletion did.
	Deletion *Deletion
}

// Trials are one release's commits pushed while a sync ran.
type Trials struct {
	// Problem says what ArgoCD did not do, "" when it synced every one.
	Problem string
	// Tally is "k/N synced by ArgoCD itself".
	Tally string
}

// Deletion is what a cascading deletion of the Application did.
type Deletion struct {
	Gone bool
	// Held says what held it, when not Gone.
	Held string
	// Left sums up what it left of the render ("" nothing).
	Left string
	// Unread are the objects of the render that could not be read after
	// it: whether the cascade left them cannot be told.
	Unread []string
}

// Grade is the verdict over a reading.
//
// BROKEN: on TO the Application is gone or no longer renders; or its last
// state read on TO is worse than FROM's: after a sync asked, a problem (the
// sync failed or stayed running, OutOfSync, not Healthy), a hook that
// succeeded on FROM skipped or failing, or, where no sync was asked, its
// sync or health worse or a new *Error condition; a commit pushed not acted
// on; a commit pushed during a sync not synced; the cascading deletion held.
// Each says whether it was already so on FROM: an upgrade that leaves an
// Application broken is not safe for it, whoever broke it.
// CHANGED: the render, the generated spec, the status's fields, the states,
// the trials or what the deletion did differ, or the Application is new on TO.
// ERROR (could not tell): a part asked could not be read and nothing
// BROKEN was found. SAFE otherwise.
func Grade(r Reading) (report.Outcome, string) {
	v := Judge(r)
	return v.Outcome, v.Reason
}

// Verdict is a grade (Grade) with the behaviour changes of ArgoCD its
// reason names (pkg/upgrade/changes: their ids).
type Verdict struct {
	Outcome   report.Outcome
	Reason    string
	Explained []string
	// Unexplained: CHANGED by a difference no change of the catalog
	// explains (the rows a team reads).
	Unexplained bool
}

// Judge is the verdict over a reading (Grade), with the changes it names.
func Judge(r Reading) Verdict {
	var j judged
	o, why := grade(r, &j)
	return Verdict{Outcome: o, Reason: why, Explained: j.cs.IDs(), Unexplained: o == report.Changed && !j.every}
}

// judged is what grade notes beside its verdict: the changes that explain
// what it found, and whether they explain every difference of a CHANGED.
type judged struct {
	cs    causes
	every bool
}

// grade is Grade, noting in j what explains what it found.
func grade(r Reading, j *judged) (report.Outcome, string) {
	a, b := r.From, r.To
	switch {
	case a == nil && b == nil:
		return report.Error, "could not tell: the Application was read on neither release"
	case a == nil:
		return report.Changed, fmt.Sprintf("%s: made on %s only (by %s)", b.Release, b.Release, r.By)
	case b == nil:
		return report.Broken, fmt.Sprintf("gone after the upgrade (made by %s on %s)", r.By, a.Release)
	case a.Unread != "" && !a.Rendered && b.Rendered && b.Unread == "" && a.Settled != nil && comparisonError(*a.Settled) != "":
		// FROM's repo server refused it (the Application says so); TO renders it
		return report.Changed, fmt.Sprintf("%s -> %s: %s renders it (%d objects), %s did not: %s", a.Release, b.Release, b.Release, b.Objects, a.Release, a.Unread)
	case a.Unread != "":
		return report.Error, fmt.Sprintf("could not tell: on %s: %s", a.Release, a.Unread)
	case b.Unread != "" && !b.Rendered && a.Rendered:
		return report.Broken, fmt.Sprintf("on %s: %s renders it no more: %s", b.Release, b.Release, b.Unread)
	case b.Unread != "":
		return report.Error, fmt.Sprintf("could not tell: on %s: %s", b.Release, b.Unread)
	}
	broken, unread := r.broken(&j.cs)
	note := ""
	if b.Deletion != nil && b.Deletion.Gone && b.Deletion.Left != "" {
		note = "; the cascade left " + b.Deletion.Left
		if r.States != "" {
			note += " (" + r.States + ")"
		}
	}
	switch {
	case len(broken) > 0 && len(unread) > 0:
		return report.Broken, fmt.Sprintf("on %s: %s%s; could not tell: %s", b.Release, strings.Join(broken, "; "), note, strings.Join(unread, "; "))
	case len(broken) > 0:
		return report.Broken, fmt.Sprintf("on %s: %s%s", b.Release, strings.Join(broken, "; "), note)
	case len(unread) > 0:
		return report.Error, "could not tell: " + strings.Join(unread, "; ")
	}
	changed, explained := r.changed()
	j.cs, j.every = explained, len(changed) == 0 && len(explained) > 0
	switch {
	case len(changed) > 0 && len(explained) > 0:
		return report.Changed, fmt.Sprintf("%s -> %s: unexplained: %s; %s%s", a.Release, b.Release, strings.Join(changed, "; "), explained, note)
	case len(changed) > 0:
		return report.Changed, fmt.Sprintf("%s -> %s: unexplained: %s%s", a.Release, b.Release, strings.Join(changed, "; "), note)
	case len(explained) > 0:
		return report.Changed, fmt.Sprintf("%s -> %s: every difference explained by ArgoCD's upgrade guides; %s%s", a.Release, b.Release, explained, note)
	}
	return report.Safe, r.safe() + note
}

// baseline is FROM's state TO's last one is held against: after a sync
// asked where one was, else once it settled; asked says which.
func (s *Side) baseline() (st appstate.State, asked bool) {
	if s.Synced != nil {
		return *s.Synced, true
	}
	if s.Settled != nil {
		return *s.Settled, false
	}
	return appstate.State{}, false
}

// broken are what the Application no longer does on TO, and unread the
// parts asked that could not be read.
func (r Reading) broken(cs *causes) (broken, unread []string) {
	a, b := r.From, r.To
	from := a.Release
	already := " (already so on " + from + ")"
	base, asked := a.baseline()
	if b.SyncUnread != "" {
		unread = append(unread, "the sync asked on "+b.Release+": "+b.SyncUnread)
	}
	switch {
	case b.Synced != nil:
		var before []string
		for _, p := range problems(base) {
			before = append(before, p.what)
		}
		comparable := asked || base.Phase != ""
		for _, p := range problems(*b.Synced) {
			line := p.what + p.detail
			if p.ref != "" {
				line += because(changes.Difference{Part: changes.Health, Object: p.ref}, from, b.Release, cs)
			}
			switch {
			case !comparable:
				line += " (" + from + " was not asked to sync it: LIFECYCLE=all asks)"
			case slices.Contains(before, p.what):
				line += already
			}
			broken = append(broken, line)
		}
		if b.Waited != "" {
			broken = append(broken, "the wait ended: "+b.Waited)
		}
		broken = append(broken, hookRegressions(base, *b.Synced, r.Hooks)...)
	case a.Settled != nil && b.Settled != nil:
		// no sync asked on TO: the state it settled in is the last word
		x, y := *a.Settled, *b.Settled
		if worse(x.Sync, y.Sync, "Synced", "OutOfSync") {
			broken = append(broken, "sync "+x.Sync+" on "+from+", "+text.OrNone(y.Sync)+" on "+b.Release)
		}
		if worse(x.Health, y.Health, "Healthy", "Progressing", "Suspended", "Missing") {
			broken = append(broken, "health "+x.Health+" on "+from+", "+text.OrNone(y.Health)+" on "+b.Release+explainHealth(y, from, b.Release, cs))
		}
		for _, cond := range y.Conditions {
			kind, _, _ := strings.Cut(cond, ":")
			if strings.HasSuffix(kind, "Error") && !slices.ContainsFunc(x.Conditions, func(c string) bool { return strings.HasPrefix(c, kind+":") }) {
				broken = append(broken, "condition "+cond)
			}
		}
	}
	if s, ref, warned := unmanaged(a, b); s != "" {
		s += because(changes.Difference{Part: changes.Unmanaged, Object: ref, Text: warned}, from, b.Release, cs)
		broken = append(broken, s)
	}
	onFrom := firstProblem(a.Pushes)
	for _, p := range b.Pushes {
		if p == "" {
			continue
		}
		if onFrom != "" {
			p += " (" + from + " did not act on its commit either: " + onFrom + ")"
		}
		broken = append(broken, p+because(changes.Difference{Part: changes.Pushed, Text: p}, from, b.Release, cs))
	}
	if b.Trials != nil && b.Trials.Problem != "" {
		p := b.Trials.Problem
		if a.Trials != nil {
			p += " (on " + from + ": " + a.Trials.Tally + ")" // a regression, or already so
		}
		broken = append(broken, p)
	}
	for _, s := range []*Side{a, b} {
		if d := s.Deletion; d != nil && len(d.Unread) > 0 {
			unread = append(unread, "what the cascading deletion on "+s.Release+" left: "+strings.Join(d.Unread, "; "))
		}
	}
	if d := b.Deletion; d != nil && len(d.Unread) == 0 && !d.Gone {
		p := "the cascading deletion was held: " + d.Held
		switch {
		case a.Deletion == nil:
			p += " (" + from + "'s is not tried in the fleet: ISOLATE=1 compares both)"
		case !a.Deletion.Gone:
			p += already
		}
		broken = append(broken, p)
	}
	return broken, unread
}

// unmanaged says which objects TO's render still holds that ArgoCD managed
// on FROM and manages no more on TO, once each release settled (3.0's
// default resource.exclusions leave Endpoints out, argoproj/argo-cd#21635:
// a later change to one is never applied, and it is never pruned); "" for
// none, or where TO's managed set was not read; with the first object
// and the condition ArgoCD gave, as a change of the catalog is matched.
func unmanaged(a, b *Side) (said, first, warned string) {
	if a.Settled == nil || b.Settled == nil || b.InGit == nil {
		return "", "", ""
	}
	var gone []string
	for _, ref := range b.InGit {
		if slices.Contains(a.Settled.Managed, ref) && !slices.Contains(b.Settled.Managed, ref) {
			gone = append(gone, ref)
		}
	}
	for _, c := range b.Settled.Conditions {
		if strings.HasPrefix(c, "ExcludedResourceWarning:") {
			warned = c
		}
	}
	if len(gone) == 0 || (len(b.Settled.Managed) == 0 && warned == "") {
		return "", "", ""
	}
	quoted := ""
	if warned != "" {
		quoted = " (" + text.Clip(warned, 160) + ")"
	}
	return fmt.Sprintf("ArgoCD no longer manages %d object(s) still in git that it managed on %s: %s%s; a change to one is not applied, and none is pruned",
		len(gone), a.Release, strings.Join(gone[:min(len(gone), Shown)], ", "), quoted), gone[0], warned
}

// changed are how the Application differs on TO, where nothing broke,
// that no behaviour change of the catalog explains, and the changes that
// explain the others.
func (r Reading) changed() ([]string, causes) {
	a, b := r.From, r.To
	var changed []string
	var cs causes
	// first: short, and a reason is clipped (run 20261128-082325's render
	// changes left no room for it)
	if a.Fields != nil && b.Fields != nil {
		if s := fieldsGone(explainFields(appstate.Gone(a.Fields, b.Fields), a.Release, b.Release, &cs), a.Release); s != "" {
			changed = append(changed, s)
		}
	}
	if r.Generated != "" {
		changed = append(changed, fmt.Sprintf("%s generates it otherwise on %s: %s", r.By, b.Release, r.Generated))
	}
	if s := renderChanged(explainRender(r.Changes, a.Release, b.Release, &cs), r.ChangesIn); s != "" {
		changed = append(changed, s)
	}
	if a.Settled != nil && b.Settled != nil {
		if d := appstate.Differences(*a.Settled, *b.Settled); len(d) > 0 {
			changed = append(changed, "after its own refresh: "+strings.Join(d, ", "))
		}
	}
	if a.Synced != nil && b.Synced != nil {
		if d := appstate.Differences(*a.Synced, *b.Synced); len(d) > 0 {
			changed = append(changed, "after the syncs: "+strings.Join(d, ", "))
		}
	}
	if a.Trials != nil && a.Trials.Problem != "" && b.Trials != nil {
		changed = append(changed, "a commit pushed while ArgoCD synced the one before (argo-cd#27875): "+r.trials())
	}
	if x, y := a.Deletion, b.Deletion; x != nil && y != nil {
		switch {
		case !x.Gone && y.Gone:
			changed = append(changed, fmt.Sprintf("the cascading deletion, held on %s (%s), goes through on %s", a.Release, x.Held, b.Release))
		case x.Gone && y.Gone && x.Left != y.Left:
			changed = append(changed, fmt.Sprintf("what the cascading deletion left: %s -> %s", text.OrNone(x.Left), text.OrNone(y.Left)))
		}
	}
	return changed, cs
}

// safe says what was the same, part by part.
func (r Reading) safe() string {
	a, b := r.From, r.To
	var same []string
	render := "the same render"
	if b.Rendered {
		render += fmt.Sprintf(" (%d objects)", b.Objects)
	}
	same = append(same, render)
	if b.Settled != nil {
		same = append(same, fmt.Sprintf("sync %s and health %s after %s's controller compared it by itself", text.OrNone(b.Settled.Sync), text.OrNone(b.Settled.Health), b.Release))
	}
	if b.Synced != nil {
		s := "the same sync, health and hooks after the syncs"
		if b.Wanted != "" {
			s += " of the commits pushed to git (" + b.Wanted + ")"
		}
		same = append(same, s+hooksRan(*b.Synced))
	}
	if b.Trials != nil {
		same = append(same, "commits pushed while a sync ran: "+r.trials())
	}
	switch {
	case a.Deletion != nil && b.Deletion != nil:
		same = append(same, "the cascading deletion goes through on both")
	case b.Deletion != nil:
		same = append(same, "the cascading deletion went through on "+b.Release)
	}
	return fmt.Sprintf("%s -> %s: %s", a.Release, b.Release, strings.Join(same, "; "))
}

// trials are DURING_SYNC's counts on both releases, as a verdict says them.
func (r Reading) trials() string {
	tally := func(t *Trials) string {
		if t == nil {
			return "none"
		}
		return t.Tally
	}
	return fmt.Sprintf("%s on %s, %s on %s", tally(r.From.Trials), r.From.Release, tally(r.To.Trials), r.To.Release)
}

func firstProblem(ps []string) string {
	for _, p := range ps {
		if p != "" {
			return p
		}
	}
	return ""
}

// fieldsGone says which fields of the Application's status, held on FROM
// (release), TO no longer holds (gone: appstate.Gone); "" for none.
func fieldsGone(gone []string, release string) string {
	if len(gone) == 0 {
		return ""
	}
	return fmt.Sprintf("the Application's status no longer holds %d field(s) it held on %s (a tool reading the resource loses them): %s",
		len(gone), release, strings.Join(gone[:min(len(gone), Shown)], ", "))
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
	for _, c := range changes[:min(n, Shown)] {
		refs = append(refs, c.String())
	}
	more := ""
	if n > Shown {
		more = fmt.Sprintf(" (and %d more%s)", n-Shown, rest)
	}
	return fmt.Sprintf("the render: %d object(s) differ: %s%s", n, strings.Join(refs, "; "), more)
}

// problem is one thing wrong in a state: what (compared between the two
// releases) and its detail (a message that may differ while the problem is
// the same).
type problem struct{ what, detail, ref string }

// problems are what is wrong in a state after a sync, one a resource where
// a resource is at fault (so that one more of them on TO tells from those
// already so on FROM).
func problems(s appstate.State) []problem {
	var out []problem
	switch s.Phase {
	case "Failed", "Error":
		out = append(out, problem{what: "the sync ended " + s.Phase, detail: appstate.MessageOf(s.Message)})
	case "Running", "Terminating":
		out = append(out, problem{what: "the sync is still " + s.Phase + " (held)", detail: appstate.MessageOf(s.Message)})
	}
	switch {
	case s.Sync != "Synced" && len(s.OutOfSync) == 0:
		out = append(out, problem{what: text.OrNone(s.Sync) + " after the sync"})
	case s.Sync != "Synced":
		for _, r := range s.OutOfSync {
			out = append(out, problem{what: "OutOfSync after the sync: " + r})
		}
	}
	switch s.Health {
	case "Degraded", "Missing", "Unknown":
		out = append(out, problem{what: "health " + s.Health})
	}
	for _, h := range s.Unhealthy {
		if h.Status != "Progressing" {
			out = append(out, problem{"not Healthy: " + h.Ref + ": " + h.Status, appstate.MessageOf(h.Message), h.Ref})
		}
	}
	return out
}

// Troubled says whether a state after a sync shows a problem the verdict
// would name (the sync failed or held, OutOfSync, not Healthy).
func Troubled(s appstate.State) bool { return len(problems(s)) > 0 }

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

// hooksRan says which hooks the operation ran, "" for none.
func hooksRan(s appstate.State) string {
	if len(s.Hooks) == 0 {
		return ""
	}
	var hs []string
	for _, h := range s.Hooks {
		hs = append(hs, h.String())
	}
	return " (hooks: " + strings.Join(hs[:min(len(hs), Shown)], ", ") + ")"
}

// comparisonError is the ComparisonError condition a state shows: ArgoCD's
// own answer that it could not render the Application, "" for none.
func comparisonError(s appstate.State) string {
	for _, c := range s.Conditions {
		if strings.HasPrefix(c, "ComparisonError:") {
			return c
		}
	}
	return ""
}

// worse says whether status b is worse than a: a is one of good and b is
// none of them (an Application never synced is OutOfSync and Missing on
// both releases; Unknown or Degraded on TO alone is what broke).
func worse(a, b string, good ...string) bool {
	return slices.Contains(good, a) && !slices.Contains(good, b)
}
