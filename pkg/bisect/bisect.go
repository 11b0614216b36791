package bisect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// maxPatchProbe bounds how far a minor line is probed for patch releases,
// maxMinorProbe how far a major version is probed for minor lines.
const (
	maxPatchProbe = 40
	maxMinorProbe = 60
)

// Releases lists the releases from..to (inclusive), in order, probing each
// minor line's patch releases (the proxy's version lists are partial). The
// range may span major versions (v2.14.21..v3.5.1): each major's releases
// come from its own module (argo-cd/v2, then argo-cd/v3), and a major's
// lines are probed up to the first minor line of which nothing is known to
// exist. probe answers nil for a release it can serve, an error wrapping
// ErrNoRelease for a tag never published, one wrapping ErrRefused where the
// proxy would not say (this machine's answers 403 for releases it lacks and
// for tags never published alike), and any other error for a release that
// exists but cannot be run here (built from a source tree the user did not
// provide). All but the never published are returned apart with the reason;
// a refused tag is known to exist when a later patch of its line does, and
// is said to be perhaps unpublished when none does.
func Releases(cat *catalog.Catalog, from, to catalog.Release, probe func(catalog.Release) error) (rels []catalog.Release, unobtainable map[string]string, err error) {
	f, t := from.Numbers(), to.Numbers()
	if from.Compare(to) >= 0 {
		return nil, nil, fmt.Errorf("range %s..%s: FROM must be before TO", from, to)
	}
	unobtainable = map[string]string{}
	for major := f[0]; major <= t[0]; major++ {
		first, last := 0, maxMinorProbe // a major before TO's: up to its last line
		if major == f[0] {
			first = f[1]
		}
		if major == t[0] {
			last = t[1]
		}
		for minor := first; minor <= last; minor++ {
			start, end := 0, maxPatchProbe
			if major == f[0] && minor == f[1] {
				start = f[2]
			}
			final := major == t[0] && minor == t[1]
			if final {
				end = t[2]
			}
			exists, misses := false, 0
			var refused []catalog.Release // since the line's last release known to exist
			why := map[catalog.Release]string{}
			known := func() { // a later patch exists: the refused ones before it do too
				exists = true
				for _, r := range refused {
					unobtainable[r.String()] = why[r]
				}
				refused = nil
			}
			for patch := start; patch <= end && misses < 3; patch++ {
				rel, err := cat.Release(fmt.Sprintf("v%d.%d.%d", major, minor, patch))
				if err != nil {
					return nil, nil, fmt.Errorf("range %s..%s: %w", from, to, err)
				}
				if rel != from && rel != to {
					err = probe(rel)
				}
				switch {
				case err == nil:
					rels = append(rels, rel)
					known()
					misses = 0
				case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
					return nil, nil, err
				case errors.Is(err, ErrNoRelease):
					if !final {
						misses++
					}
				case errors.Is(err, ErrRefused):
					refused = append(refused, rel) // misses unchanged: the proxy refuses releases that exist too
					why[rel] = err.Error()
				default:
					unobtainable[rel.String()] = err.Error()
					known()
					misses = 0
				}
			}
			if !exists && major != t[0] && minor > first {
				break // the major's last line was the one before
			}
			for _, r := range refused {
				unobtainable[r.String()] = why[r] + "; no later patch of its line is known: perhaps never published"
			}
		}
	}
	slices.SortFunc(rels, catalog.Release.Compare)
	return rels, unobtainable, nil
}

// ErrNoRelease is a tag the module proxy says was never published.
var ErrNoRelease = errors.New("no such release")

// ErrUnbuildable is a release eval could not build here (its module needs
// what the module proxy will not serve): Find leaves it out, says why, and
// runs the nearest release that builds instead.
var ErrUnbuildable = errors.New("cannot be built here")

// ErrRefused is a tag the module proxy would not say anything about (403):
// on this machine's proxy, a release it lacks and a tag never published
// answer alike.
var ErrRefused = errors.New("refused by the module proxy")

// Probe asks the module proxy for an ArgoCD release: nil when it can be
// had, ErrNoRelease when it does not exist, ErrRefused when the proxy would
// not answer for it, another error when it exists and does not download (its
// go.mod refused), ctx's error when the search was stopped.
func Probe(ctx context.Context, rel catalog.Release) error {
	err := sources.Served(ctx, rel.Module(), rel.String())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sources.ErrNoGoMod):
		return sources.ErrNoGoMod
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case sources.NotPublished(err):
		return fmt.Errorf("%s: %w", rel, ErrNoRelease)
	}
	return fmt.Errorf("%w (%s)", ErrRefused, strings.TrimSpace(strings.TrimPrefix(shell.LastLine(err.Error()), "server response:")))
}

// Search is the result of a bisect or a sweep over releases.
type Search struct {
	Scenario string                    `json:"scenario"`
	Variant  string                    `json:"variant"`
	Releases []string                  `json:"releases"`
	Sweep    bool                      `json:"sweep"`
	Runs     map[string]report.Outcome `json:"runs"`
	// Groups, when the bisect grouped the releases before running any, map
	// each release to its group's key (for ArgoCD: the gitops-engine pin in
	// its go.mod). A grouping is read from sources, not measured: releases
	// of one group may still differ.
	Groups    map[string]string `json:"groups,omitempty"`
	GroupedBy string            `json:"grouped_by,omitempty"`
	// Unobtainable are releases of the range that exist but cannot be run
	// here (the module proxy will not serve them), with the reason.
	Unobtainable map[string]string `json:"unobtainable,omitempty"`
	// Changes are the adjacent pairs of releases that were both run and differ.
	Changes []Change `json:"changes"`
	// NotRun are the releases the search did not run: a change hidden
	// between two run releases with one outcome (an island) is not seen.
	NotRun  []string `json:"not_run"`
	Verdict string   `json:"verdict"`
}

// Change is an outcome flip between two consecutive releases that were run.
type Change struct {
	Last  string         `json:"last"`
	From  report.Outcome `json:"from"`
	First string         `json:"first"`
	To    report.Outcome `json:"to"`
}

// Grouping tells which releases are expected to behave alike before any is
// run: Key maps a release to its group (consecutive releases with one key
// are one group); By says what the key is, for the report.
type Grouping struct {
	By  string
	Key func(tag string) (string, error)
}

// Find runs eval on releases (in order) and reports where the outcome
// changes. A sweep runs every release and finds every change. A bisect runs
// the two ends, and with a grouping the first release of every group, then
// halves each range between two differing outcomes. It says which releases
// it did not run, since an island between two equal outcomes is invisible to
// it (the kyverno-argocd hold exists on v2.14.3 only: v2.14.2 and v2.14.4
// agree); a grouping finds such an island when its releases form a group of
// their own (v2.14.3 is the only 2.14 release with its gitops-engine pin).
func Find(scenario, variant string, releases []string, sweep bool, groups *Grouping, eval func(tag string) (report.Outcome, error)) (*Search, error) {
	s := &Search{Scenario: scenario, Variant: variant, Releases: releases, Sweep: sweep, Runs: map[string]report.Outcome{}}
	// run runs the release at i, or when it cannot be built here the nearest
	// one that can, stepping toward stop (its index, or -1 when none between can)
	run := func(i, stop int) (int, report.Outcome, error) {
		step := 1
		if stop < i {
			step = -1
		}
		for ; ; i += step {
			tag := releases[i]
			if o, ok := s.Runs[tag]; ok {
				return i, o, nil
			}
			if _, ok := s.Unobtainable[tag]; !ok {
				o, err := eval(tag)
				if !errors.Is(err, ErrUnbuildable) {
					if err != nil {
						return i, "", fmt.Errorf("run %q on %q: %w", scenario+"/"+variant, tag, err)
					}
					s.Runs[tag] = o
					return i, o, nil
				}
				if s.Unobtainable == nil {
					s.Unobtainable = map[string]string{}
				}
				s.Unobtainable[tag] = err.Error()
			}
			if i == stop {
				return -1, "", nil
			}
		}
	}
	var err error
	if sweep {
		for i := range releases {
			if _, _, err = run(i, i); err != nil {
				break
			}
		}
	} else {
		var halve func(lo, hi int) error
		halve = func(lo, hi int) error {
			lo, a, err := run(lo, hi)
			if err != nil || lo < 0 {
				return err
			}
			hi, b, err := run(hi, lo)
			if err != nil || a == b || hi-lo <= 1 {
				return err
			}
			mid := (lo + hi) / 2
			if err := halve(lo, mid); err != nil {
				return err
			}
			return halve(mid, hi)
		}
		points := []int{0, len(releases) - 1}
		if groups != nil {
			if points, err = s.group(groups); err != nil {
				err = fmt.Errorf("group the releases: %w", err)
			}
		}
		for i := 0; err == nil && i+1 < len(points); i++ {
			err = halve(points[i], points[i+1])
		}
	}
	s.Settle()
	if err != nil {
		// what was run stands, and the verdict says the search did not finish
		s.Verdict = "incomplete (" + err.Error() + "): " + s.Verdict
	}
	return s, err
}

// groupRun reports whether a release of the group key was run.
func (s *Search) groupRun(key string) bool {
	for tag := range s.Runs {
		if s.Groups[tag] == key {
			return true
		}
	}
	return false
}

// group reads every release's key and returns the indices to run first: the
// first release of each group and the last release.
func (s *Search) group(g *Grouping) ([]int, error) {
	s.Groups, s.GroupedBy = map[string]string{}, g.By
	var points []int
	for i, tag := range s.Releases {
		key, err := g.Key(tag)
		if err != nil {
			return []int{0, len(s.Releases) - 1}, fmt.Errorf("%s: %w", tag, err)
		}
		s.Groups[tag] = key
		if i == 0 || key != s.Groups[s.Releases[i-1]] {
			points = append(points, i)
		}
	}
	if last := len(s.Releases) - 1; points[len(points)-1] != last {
		points = append(points, last)
	}
	return points, nil
}

// Settle derives the changes, the releases not run and the verdict from Runs.
func (s *Search) Settle() {
	s.Changes, s.NotRun = nil, nil
	var prev string
	for _, tag := range s.Releases {
		o, ok := s.Runs[tag]
		if !ok {
			if _, out := s.Unobtainable[tag]; !out {
				s.NotRun = append(s.NotRun, tag)
			}
			continue
		}
		if prev != "" && s.Runs[prev] != o {
			s.Changes = append(s.Changes, Change{Last: prev, From: s.Runs[prev], First: tag, To: o})
		}
		prev = tag
	}
	var parts []string
	for _, c := range s.Changes {
		parts = append(parts, fmt.Sprintf("%s on %s, %s from %s", c.From, c.Last, c.To, c.First))
	}
	if len(s.Changes) == 0 && len(s.Runs) > 0 {
		parts = append(parts, "no change among the releases run")
	}
	var covered, uncovered []string // not run, with and without a run release in their group
	for _, tag := range s.NotRun {
		if s.Groups != nil && s.groupRun(s.Groups[tag]) {
			covered = append(covered, tag)
		} else {
			uncovered = append(uncovered, tag)
		}
	}
	if len(covered) > 0 {
		parts = append(parts, fmt.Sprintf("not run: %s, each grouped with a release that was run by %s (a grouping read from sources, not a measurement: "+
			"a change inside a group would be missed; `make sweep` runs every release)", strings.Join(covered, " "), s.GroupedBy))
	}
	switch {
	case len(covered) > 0 && len(uncovered) == 0:
	case len(uncovered) > 0:
		parts = append(parts, fmt.Sprintf("not run: %s; a change between two run releases with the same outcome (an island) would be missed: `make sweep` runs every release",
			strings.Join(uncovered, " ")))
	default:
		parts = append(parts, "every release in the range was run")
	}
	if len(s.Unobtainable) > 0 {
		// each reason once, after the releases it holds for; reasons in the
		// order of their first release
		tags := slices.SortedFunc(maps.Keys(s.Unobtainable), catalog.CompareTags)
		byWhy := map[string][]string{}
		var whys []string
		for _, tag := range tags {
			why := s.Unobtainable[tag]
			if _, ok := byWhy[why]; !ok {
				whys = append(whys, why)
			}
			byWhy[why] = append(byWhy[why], tag)
		}
		var groups []string
		for _, why := range whys {
			groups = append(groups, spans(byWhy[why])+" ("+why+")")
		}
		parts = append(parts, "not obtainable here, so not run: "+strings.Join(groups, ", "))
	}
	s.Verdict = strings.Join(parts, "; ")
}

// spans writes sorted tags, consecutive patches of a line as one span:
// "v3.0.24..v3.0.40 v3.1.17".
func spans(tags []string) string {
	var out []string
	for i := 0; i < len(tags); {
		j := i
		for j+1 < len(tags) {
			a, b := catalog.TagNumbers(tags[j]), catalog.TagNumbers(tags[j+1])
			if a[0] != b[0] || a[1] != b[1] || a[2]+1 != b[2] {
				break
			}
			j++
		}
		if j > i {
			out = append(out, tags[i]+".."+tags[j])
		} else {
			out = append(out, tags[i])
		}
		i = j + 1
	}
	return strings.Join(out, " ")
}

// Write saves the search as bisect.json in dir.
func (s *Search) Write(dir string) error {
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "bisect.json"), append(out, '\n'), 0o644)
}

// gitopsEngine is the module ArgoCD's sync, hooks and diffing live in. From
// v3.3 its code is in ArgoCD's own tree: 3.3.x keeps the path and replaces it
// with ./gitops-engine (v3.3.14 go.mod:500, the same pin in every patch), and
// from 3.4 the path is nestedEngine, replaced likewise (v3.4.7 go.mod:369).
const (
	gitopsEngine = "github.com/argoproj/gitops-engine"
	nestedEngine = "github.com/argoproj/argo-cd/gitops-engine"
)

// EngineGrouping groups ArgoCD releases by the gitops-engine their go.mod
// pins (read from the module proxy: go.mod files only). A release whose
// go.mod replaces the engine with the tree's own directory (v3.3 on) pins
// nothing the proxy can tell apart: it is a group of its own.
func EngineGrouping(ctx context.Context, byTag map[string]catalog.Release) *Grouping {
	return &Grouping{
		By: "the " + gitopsEngine + " version their go.mod pins (from v3.3 the engine is the tree's own directory, whatever the pin: each release a group of its own)",
		Key: func(tag string) (string, error) {
			rel := byTag[tag]
			if rel.FromSources() {
				// the engine is the tree's own nested module: a group of its
				// own, without asking the proxy for a go.mod it may refuse
				return EngineKey(func(string) (string, error) { return "./gitops-engine", nil }, tag)
			}
			return EngineKey(func(dep string) (string, error) { return sources.Requirement(ctx, rel.Module(), rel.String(), dep) }, tag)
		},
	}
}

// EngineKey is a release's group key from what its go.mod requires of the
// engine (required answers sources.Requirement's way: a version, a replacing
// "path version", or a local directory).
func EngineKey(required func(dep string) (string, error), tag string) (string, error) {
	v, err := required(gitopsEngine)
	if err != nil {
		if v, err = required(nestedEngine); err != nil {
			return "", err
		}
	}
	if strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return v + " (the tree at " + tag + ")", nil
	}
	return v, nil
}
