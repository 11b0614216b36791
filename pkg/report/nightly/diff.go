package nightly

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
)

// CellRef is a cell's identity when runs are compared: scenario, variant,
// ArgoCD release, component version and Kubernetes version.
type CellRef struct {
	Scenario         string `json:"scenario"`
	Variant          string `json:"variant"`
	ArgoCD           string `json:"argocd"`
	Component        string `json:"component,omitempty"`
	ComponentVersion string `json:"component_version,omitempty"`
	Kubernetes       string `json:"kubernetes,omitempty"`
}

// refOf is c's identity across runs.
func refOf(c report.Cell) CellRef {
	return CellRef{Scenario: c.Scenario, Variant: c.Variant, ArgoCD: c.ArgoCD, Component: c.Component,
		ComponentVersion: c.ComponentVersion, Kubernetes: c.Kubernetes}
}

// key leaves the component's name out: the version names the release.
func (r CellRef) key() string {
	return strings.Join([]string{r.Scenario, r.Variant, r.ArgoCD, r.ComponentVersion, r.Kubernetes}, "|")
}

// Change is a cell whose outcome differs between two runs.
type Change struct {
	Cell CellRef        `json:"cell"`
	From report.Outcome `json:"from"`
	To   report.Outcome `json:"to"`
	// Expected and Reason are the newer run's.
	Expected   report.Outcome `json:"expected,omitempty"`
	Unmeasured bool           `json:"unmeasured,omitempty"`
	Reason     string         `json:"reason,omitempty"`
	// Supported: the cell's ArgoCD release is on a supported minor line
	// (every release is, when the diff was given no lines).
	Supported bool `json:"supported"`
	// SeenIn is the earlier comparison that already reported this change
	// (the same cell, from the same outcome to the same): "" the first time.
	SeenIn string `json:"seen_in,omitempty"`
}

// Fails reports whether the change fails the nightly: a new change on a
// supported release between two results that say something. A change from
// ERROR (a recovery) or from or to SKIPPED (a cell that could not run) is
// listed, never failing; the same change reported before does not fail
// again.
func (c Change) Fails() bool {
	return c.Supported && c.SeenIn == "" && c.From != report.Error && c.From != report.Skipped && c.To != report.Skipped
}

// NewRelease is a release that ran in the newer run and in no cell of the
// older one: an ArgoCD release, a component release or a Kubernetes version.
type NewRelease struct {
	Kind     string                 `json:"kind"` // "ArgoCD", "Kubernetes", or the component's name
	Version  string                 `json:"version"`
	Cells    int                    `json:"cells"`
	Outcomes map[report.Outcome]int `json:"outcomes"`
	// Unmeasured counts its cells no measured expectation covers.
	Unmeasured int `json:"unmeasured"`
}

// Diff is what changed from one run (a night's merged report) to the next.
type Diff struct {
	Old        string    `json:"old"`
	New        string    `json:"new"`
	OldStarted time.Time `json:"old_started"`
	NewStarted time.Time `json:"new_started"`
	// Supported are the ArgoCD minor lines a change fails on ("3.6");
	// empty: every release.
	Supported []string `json:"supported,omitempty"`
	// Kubernetes are the Kubernetes versions the two runs' cells ran on.
	Kubernetes []string `json:"kubernetes"`
	// Flips are the cells whose outcome changed; Races those that came out
	// the other way where their expectation is RACE (either way is as
	// expected).
	Flips []Change `json:"flips"`
	Races []Change `json:"races,omitempty"`
	// NewReleases ran in the newer run only; NewCells are the newer run's
	// cells on releases that ran before (a new variant); Stopped are the
	// older run's cells the newer one does not hold.
	NewReleases []NewRelease `json:"new_releases"`
	NewCells    []CellRef    `json:"new_cells"`
	Stopped     []CellRef    `json:"stopped"`
}

// DiffOf lists what changed from old to new. supported are the ArgoCD
// minor lines ("3.6") a flip fails on; none: every release.
func DiffOf(old, new *report.Report, supported []string) *Diff {
	d := &Diff{Old: old.RunID, New: new.RunID, OldStarted: old.Started, NewStarted: new.Started, Supported: supported,
		Flips: []Change{}, NewReleases: []NewRelease{}, NewCells: []CellRef{}, Stopped: []CellRef{}}
	before := map[string]report.Cell{}
	for _, c := range old.Cells {
		before[refOf(c).key()] = c
	}
	for _, r := range []*report.Report{old, new} {
		for _, c := range r.Cells {
			if c.Kubernetes != "" && !slices.Contains(d.Kubernetes, c.Kubernetes) {
				d.Kubernetes = append(d.Kubernetes, c.Kubernetes)
			}
		}
	}
	slices.SortFunc(d.Kubernetes, catalog.CompareTags)
	ran := releasesOf(old)
	newRel := map[string]*NewRelease{}
	var order []string
	now := map[string]bool{}
	for _, c := range new.Cells {
		ref := refOf(c)
		now[ref.key()] = true
		prev, ok := before[ref.key()]
		if ok {
			if prev.Outcome == c.Outcome {
				continue
			}
			ch := Change{Cell: ref, From: prev.Outcome, To: c.Outcome, Expected: c.Expected, Unmeasured: c.Unmeasured,
				Reason: c.Reason, Supported: onLine(c.ArgoCD, supported)}
			if differ(prev, c) {
				d.Flips = append(d.Flips, ch)
			} else {
				d.Races = append(d.Races, ch)
			}
			continue
		}
		fresh := false
		for _, rel := range releasesOfCell(c) {
			if ran[rel] {
				continue
			}
			fresh = true
			nr, ok := newRel[rel]
			if !ok {
				kind, version, _ := strings.Cut(rel, " ")
				nr = &NewRelease{Kind: kind, Version: version, Outcomes: map[report.Outcome]int{}}
				newRel[rel] = nr
				order = append(order, rel)
			}
			nr.Cells++
			nr.Outcomes[c.Outcome]++
			if c.Unmeasured {
				nr.Unmeasured++
			}
		}
		if !fresh {
			d.NewCells = append(d.NewCells, ref)
		}
	}
	for _, rel := range order {
		d.NewReleases = append(d.NewReleases, *newRel[rel])
	}
	for _, c := range old.Cells {
		if !now[refOf(c).key()] {
			d.Stopped = append(d.Stopped, refOf(c))
		}
	}
	return d
}

// releasesOf are the releases a run's cells ran on, as "kind version".
func releasesOf(r *report.Report) map[string]bool {
	m := map[string]bool{}
	for _, c := range r.Cells {
		for _, rel := range releasesOfCell(c) {
			m[rel] = true
		}
	}
	return m
}

func releasesOfCell(c report.Cell) []string {
	out := []string{"ArgoCD " + c.ArgoCD}
	if c.ComponentVersion != "" {
		out = append(out, c.Component+" "+c.ComponentVersion)
	}
	if c.Kubernetes != "" {
		out = append(out, "Kubernetes "+c.Kubernetes)
	}
	return out
}

// onLine reports whether tag is on one of the lines ("3.6"); every tag is
// when no line is given.
func onLine(tag string, lines []string) bool {
	if len(lines) == 0 {
		return true
	}
	n := catalog.TagNumbers(tag)
	return slices.Contains(lines, fmt.Sprintf("%d.%d", n[0], n[1]))
}

// MarkSeen sets SeenIn on each flip an earlier comparison already reported
// (the same cell, the same from and to): the first that did, by its newer
// run. Comparisons of the same newer run (a night compared again: the same
// run id and start) do not count.
func (d *Diff) MarkSeen(earlier []*Diff) {
	for i := range d.Flips {
		f := &d.Flips[i]
		for _, e := range earlier {
			if e.New == d.New && e.NewStarted.Equal(d.NewStarted) {
				continue
			}
			if slices.ContainsFunc(e.Flips, func(x Change) bool {
				return x.Cell.key() == f.Cell.key() && x.From == f.From && x.To == f.To
			}) {
				f.SeenIn = e.New
				break
			}
		}
	}
}

// Failing are the flips that fail the nightly (Change.Fails).
func (d *Diff) Failing() []Change {
	var out []Change
	for _, f := range d.Flips {
		if f.Fails() {
			out = append(out, f)
		}
	}
	return out
}

// LoadDiff reads a diff.json.
func LoadDiff(path string) (*Diff, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load diff: %w", err)
	}
	var d Diff
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("load diff %q: %w", path, err)
	}
	return &d, nil
}

// Markdown is the diff as the nightly's job summary starts: every flip, every
// new release that ran, every cell that stopped running.
func (d *Diff) Markdown() string {
	var b strings.Builder
	failing := len(d.Failing())
	var parts []string
	parts = append(parts, plural(len(d.Flips), "cell changed its outcome", "cells changed their outcome"))
	switch {
	case failing == 1:
		parts[0] += " (1 fails the nightly)"
	case failing > 1:
		parts[0] += fmt.Sprintf(" (%d fail the nightly)", failing)
	}
	parts = append(parts, plural(len(d.NewReleases), "new release ran", "new releases ran"),
		plural(len(d.Stopped), "cell stopped running", "cells stopped running"))
	if len(d.NewCells) > 0 {
		parts = append(parts, plural(len(d.NewCells), "new cell", "new cells"))
	}
	fmt.Fprintf(&b, "## Since the last night: %s\n\n", strings.Join(parts, ", "))
	fmt.Fprintf(&b, "%s (%s) to %s (%s)", d.Old, d.OldStarted.UTC().Format("2006-01-02 15:04Z"), d.New, d.NewStarted.UTC().Format("2006-01-02 15:04Z"))
	if len(d.Kubernetes) == 1 {
		fmt.Fprintf(&b, ", Kubernetes %s", d.Kubernetes[0])
	}
	b.WriteString(".")
	if len(d.Supported) > 0 {
		fmt.Fprintf(&b, " A new change on a supported ArgoCD line (%s) fails the nightly; the same change reported before does not fail again.", strings.Join(d.Supported, ", "))
	} else {
		b.WriteString(" Every release counts as supported (no lines given): a new change fails.")
	}
	b.WriteString("\n\n")
	if len(d.Flips) > 0 {
		b.WriteString("### Outcome changed\n\n| cell | ArgoCD | was | now | expected | |\n|---|---|---|---|---|---|\n")
		for _, f := range d.Flips {
			fmt.Fprintf(&b, "| %s | %s | %s | **%s** | %s | %s |\n", mdEscape(d.name(f.Cell, false)), f.Cell.ArgoCD, f.From, f.To, expectedText(f), verdict(f))
		}
		b.WriteString("\n")
	}
	if len(d.NewReleases) > 0 {
		b.WriteString("### New releases that ran\n\n")
		for _, nr := range d.NewReleases {
			fmt.Fprintf(&b, "- %s %s: %s (%s)", nr.Kind, nr.Version, plural(nr.Cells, "cell", "cells"), outcomeCounts(nr.Outcomes))
			if nr.Unmeasured > 0 {
				fmt.Fprintf(&b, ", %d unmeasured", nr.Unmeasured)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if len(d.NewCells) > 0 {
		b.WriteString("### New cells on releases that ran before\n\n")
		for _, c := range d.NewCells {
			fmt.Fprintf(&b, "- %s\n", d.name(c, true))
		}
		b.WriteString("\n")
	}
	if len(d.Stopped) > 0 {
		b.WriteString("### Stopped running\n\n")
		for _, c := range d.Stopped {
			fmt.Fprintf(&b, "- %s\n", d.name(c, true))
		}
		b.WriteString("\n")
	}
	if len(d.Races) > 0 {
		b.WriteString("### The other way, as expected (RACE)\n\n")
		for _, f := range d.Races {
			fmt.Fprintf(&b, "- %s: %s, now %s\n", d.name(f.Cell, true), f.From, f.To)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// name names a cell in the Markdown, its ArgoCD release where asked, its
// Kubernetes version where the runs ran on several.
func (d *Diff) name(r CellRef, argocd bool) string {
	s := r.Scenario + " " + r.Variant
	if argocd {
		s += " · ArgoCD " + r.ArgoCD
	}
	if r.ComponentVersion != "" {
		s += " · " + strings.TrimSpace(r.Component+" "+r.ComponentVersion)
	}
	if r.Kubernetes != "" && len(d.Kubernetes) > 1 {
		s += " · Kubernetes " + r.Kubernetes
	}
	return s
}

func expectedText(c Change) string {
	if c.Unmeasured {
		return "unmeasured"
	}
	return string(c.Expected)
}

func verdict(c Change) string {
	switch {
	case c.Fails():
		return "**fails the nightly**"
	case c.SeenIn != "":
		return "reported before (" + c.SeenIn + ")"
	case !c.Supported:
		return "end-of-life ArgoCD line: listed"
	case c.From == report.Error:
		return "recovered from ERROR"
	}
	return "could not run: listed"
}

func outcomeCounts(m map[report.Outcome]int) string {
	var parts []string
	for _, o := range report.Outcomes {
		if m[o] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", o, m[o]))
		}
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 0 {
		return "no " + one
	}
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// mdEscape keeps s in one Markdown table cell, as render's does.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
