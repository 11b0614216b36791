package report

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Source is one run a merged report was made from.
type Source struct {
	RunID      string    `json:"run_id"`
	Dir        string    `json:"dir,omitempty"` // the run's directory, relative to the merged report
	Started    time.Time `json:"started"`
	Finished   time.Time `json:"finished"`
	Offline    bool      `json:"offline"`
	Kubernetes string    `json:"kubernetes"`
	Command    string    `json:"command,omitempty"`
	Cells      int       `json:"cells"`
}

// Key is what makes two results the same cell of the matrix: the same
// scenario, variant, ArgoCD release, component version and Kubernetes minor
// (the axis has one version per minor; an online run's node image may be
// another patch of it).
type Key struct{ scenario, variant, argocd, componentVersion, kubeMinor string }

// Key is c's place in the matrix, which Merge folds repeated results by.
func (c Cell) Key() Key {
	n := catalog.TagNumbers(c.Kubernetes)
	minor := ""
	if c.Kubernetes != "" {
		minor = fmt.Sprintf("%d.%d", n[0], n[1])
	}
	return Key{c.Scenario, c.Variant, c.ArgoCD, c.ComponentVersion, minor}
}

// Merge makes one report, one compatibility matrix, of several runs' reports:
// every cell of every run, taken in the order the runs started. The merged
// report starts when the first run started and finishes when the last one
// finished; its Kubernetes version and mode are the runs' when they agree, and
// a note says so when they do not (Kubernetes is then the latest run's, and
// offline is false).
//
// A cell (scenario, variant, ArgoCD, component version) that several runs hold
// stays one cell of the matrix, with each run's result as one of its runs, as
// if it had run with REPEAT: "2/2 REPRODUCED" when they agree, FLAKY when they
// disagree. A later run never silently replaces an earlier verdict. The later
// run's expectation is the one checked (a note names a change). A SKIPPED
// result gives way to a run that ran the cell (an offline run of kargo-argocd
// next to an online one), with a note.
//
// Evidence paths point into each run's directory (Report.Dir, set by LoadDir):
// Merge leaves them absolute, and Rebase makes them relative to where the merged
// report is written. A merged report can be merged again.
func Merge(reports ...*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("merge reports: no reports given")
	}
	runs := slices.Clone(reports)
	seen := map[string]bool{}
	for _, r := range runs {
		if r == nil {
			return nil, errors.New("merge reports: a nil report")
		}
		if r.Dir != "" && seen[r.Dir] {
			return nil, fmt.Errorf("merge reports: %q given twice", r.Dir)
		}
		seen[r.Dir] = true
	}
	slices.SortStableFunc(runs, func(a, b *Report) int { return a.Started.Compare(b.Started) })

	m := &Report{Started: runs[0].Started, Finished: runs[0].Finished}
	cells := map[Key]*Cell{}
	from := map[Key]string{} // the run id of the result a cell holds now
	var order []Key
	gaveWay := map[string]int{} // run id: SKIPPED results left out
	for _, r := range runs {
		if r.Started.Before(m.Started) {
			m.Started = r.Started
		}
		if r.Finished.After(m.Finished) {
			m.Finished = r.Finished
		}
		m.Sources = append(m.Sources, r.sources()...)
		m.ArgoCDSupport = m.ArgoCDSupport.merge(r.ArgoCDSupport)
		for _, n := range r.Notes {
			if !slices.Contains(m.Notes, n) {
				m.Notes = append(m.Notes, n)
			}
		}
		for _, c := range r.Cells {
			c = r.relocate(c)
			k := c.Key()
			prev, ok := cells[k]
			switch {
			case !ok:
				cells[k] = &c
				order = append(order, k)
			case c.Outcome == Skipped && prev.Outcome != Skipped:
				gaveWay[r.RunID]++
				continue
			case prev.Outcome == Skipped && c.Outcome != Skipped:
				gaveWay[from[k]]++
				*prev = c
			default:
				if prev.Expected != c.Expected {
					m.Notes = append(m.Notes, fmt.Sprintf("%s: expected %s in run %s, %s in run %s; the later expectation is checked",
						c.ID(), prev.Expected, from[k], c.Expected, r.RunID))
				}
				results := append(prev.Results(), c.Results()...)
				*prev = c
				prev.Runs = results
				prev.Settle()
			}
			from[k] = r.RunID
		}
	}
	for _, id := range slices.Sorted(maps.Keys(gaveWay)) {
		m.Notes = append(m.Notes, fmt.Sprintf("run %s: %d SKIPPED result(s) left out where another run ran the cell", id, gaveWay[id]))
	}
	slices.SortStableFunc(m.Sources, func(a, b Source) int { return a.Started.Compare(b.Started) })
	m.RunID = "merged-" + m.Finished.UTC().Format("20060102-150405")
	for _, k := range order {
		m.Cells = append(m.Cells, *cells[k])
	}
	sortCells(m.Cells)
	m.Kubernetes, m.Offline = m.agree()
	return m, nil
}

// merge is s with o's releases added, a later read (o's) winning for a
// release both hold and for the lines.
func (s *Support) merge(o *Support) *Support {
	if o == nil {
		return s
	}
	out := &Support{Releases: map[string]string{}}
	if s != nil {
		maps.Copy(out.Releases, s.Releases)
		out.Lines, out.Why = s.Lines, s.Why
	}
	maps.Copy(out.Releases, o.Releases)
	if len(o.Lines) > 0 || len(out.Lines) == 0 {
		out.Lines, out.Why = o.Lines, o.Why
	}
	return out
}

// sources are the runs r stands for: itself, or the runs it was merged from.
func (r *Report) sources() []Source {
	if len(r.Sources) == 0 {
		return []Source{{RunID: r.RunID, Dir: r.Dir, Started: r.Started, Finished: r.Finished, Offline: r.Offline,
			Kubernetes: r.Kubernetes, Command: r.Command, Cells: len(r.Cells)}}
	}
	out := slices.Clone(r.Sources)
	for i := range out {
		out[i].Dir = r.join(out[i].Dir)
	}
	return out
}

// relocate returns c with its evidence paths joined to r's directory.
func (r *Report) relocate(c Cell) Cell {
	c.Evidence = r.join(c.Evidence)
	c.Runs = slices.Clone(c.Runs)
	for i := range c.Runs {
		c.Runs[i].Evidence = r.join(c.Runs[i].Evidence)
	}
	return c
}

func (r *Report) join(path string) string {
	if r.Dir == "" || path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(r.Dir, path)
}

// Results are the cell's runs: its Runs, or itself when it ran once.
func (c Cell) Results() []Run {
	if len(c.Runs) > 0 {
		return c.Runs
	}
	return []Run{{Outcome: c.Outcome, Reason: c.Reason, Duration: c.Duration, Evidence: c.Evidence, Phases: c.Phases}}
}

// agree returns the Kubernetes version and mode of m's runs, noting where they differ.
func (m *Report) agree() (kubernetes string, offline bool) {
	byMode := map[string][]string{}
	var modes []string
	for _, s := range m.Sources {
		mode := "online"
		if s.Offline {
			mode = "offline"
		}
		if _, ok := byMode[mode]; !ok {
			modes = append(modes, mode)
		}
		byMode[mode] = append(byMode[mode], s.RunID)
	}
	last := m.Sources[len(m.Sources)-1]
	kubernetes = KubeVersions(m.Cells) // each cell names its own
	if kubernetes == "" {
		kubernetes = last.Kubernetes
	}
	if len(modes) > 1 {
		m.Notes = append(m.Notes, "the runs differ in mode: "+listed(modes, byMode))
		return kubernetes, false
	}
	return kubernetes, last.Offline
}

// KubeVersions are the Kubernetes versions cells ran on, oldest first,
// comma-separated: a report's run-level kubernetes.
func KubeVersions(cells []Cell) string {
	var vs []string
	for _, c := range cells {
		if c.Kubernetes != "" && !slices.Contains(vs, c.Kubernetes) {
			vs = append(vs, c.Kubernetes)
		}
	}
	slices.SortFunc(vs, catalog.CompareTags)
	return strings.Join(vs, ", ")
}

func listed(values []string, runs map[string][]string) string {
	var parts []string
	for _, v := range values {
		label := "run"
		if len(runs[v]) > 1 {
			label = "runs"
		}
		parts = append(parts, fmt.Sprintf("%s (%s %s)", v, label, strings.Join(runs[v], ", ")))
	}
	return strings.Join(parts, ", ")
}

// sortCells orders cells as a matrix reads: scenarios, variants and component
// versions in the order they first appear, ArgoCD releases by version.
func sortCells(cells []Cell) {
	rank := map[string]int{}
	rankOf := func(key string) int {
		if _, ok := rank[key]; !ok {
			rank[key] = len(rank)
		}
		return rank[key]
	}
	for _, c := range cells {
		rankOf("s/" + c.Scenario)
		rankOf("v/" + c.Scenario + "/" + c.Variant)
		rankOf("c/" + c.Scenario + "/" + c.ComponentVersion)
	}
	slices.SortStableFunc(cells, func(a, b Cell) int {
		for _, k := range [][2]string{{"s/" + a.Scenario, "s/" + b.Scenario},
			{"v/" + a.Scenario + "/" + a.Variant, "v/" + b.Scenario + "/" + b.Variant},
			{"c/" + a.Scenario + "/" + a.ComponentVersion, "c/" + b.Scenario + "/" + b.ComponentVersion}} {
			if d := rank[k[0]] - rank[k[1]]; d != 0 {
				return d
			}
		}
		if d := catalog.CompareTags(a.ArgoCD, b.ArgoCD); d != 0 {
			return d
		}
		return catalog.CompareTags(a.Kubernetes, b.Kubernetes)
	})
}

// Rebase makes r's absolute evidence and source paths (Merge's) relative to
// dir, where r is about to be written, so that its links hold wherever dir and
// the runs it points into move together.
func (r *Report) Rebase(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("rebase report: %w", err)
	}
	var errs []error
	rel := func(p *string) {
		if !filepath.IsAbs(*p) {
			return
		}
		rp, err := filepath.Rel(abs, *p)
		if err != nil {
			errs = append(errs, err)
			return
		}
		*p = filepath.ToSlash(rp)
	}
	for i := range r.Cells {
		rel(&r.Cells[i].Evidence)
		for j := range r.Cells[i].Runs {
			rel(&r.Cells[i].Runs[j].Evidence)
		}
	}
	for i := range r.Sources {
		rel(&r.Sources[i].Dir)
	}
	r.Dir = abs
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("rebase report to %q: %w", dir, err)
	}
	return nil
}
