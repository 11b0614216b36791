package route

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// Change is one behaviour change the suite measured on an upgrade path: two
// releases measured one after the other (none measured between them) along
// one series, a scenario's variant on one component version, Kubernetes
// version and mode, with different outcomes.
type Change struct {
	Scenario, Variant string
	// Component is the scenario's component, ComponentVersion its version
	// measured ("" for a variant that installs none).
	Component, ComponentVersion string
	// Kubernetes is the Kubernetes versions measured, comma-separated as an
	// expectation writes them: the series on each showed the same change.
	Kubernetes string
	// Mode is "offline" or "online" as the expectations say, "" where they
	// hold in either.
	Mode string
	// Before is the newest release measured before the change and After the
	// first measured after it: the change lies in (Before, After].
	Before, After               catalog.Release
	BeforeOutcome, AfterOutcome report.Outcome
	// Exact says Before and After are neighbouring releases of those Of
	// was given (no release between them): the change is at After exactly.
	Exact bool
	// Runs are the run ids the expectations of Before and After name.
	Runs []string
	// Mitigations are what was measured at Before and After for the
	// scenario's other mitigation variants on the same Kubernetes version and
	// mode, e.g. "short-name MITIGATED on v3.4.2", with the component version
	// where it is not ComponentVersion.
	Mitigations []string
	// Upstream is the scenario's upstream issue.
	Upstream string
}

// Route is what the suite measured on the path From -> To.
type Route struct {
	From, To catalog.Release
	// Changes are the changes on the path, by scenario, variant, component
	// version, mode and Before.
	Changes []Change
	// Measured are the series measured on the path without a change, each
	// with its outcome and where, e.g. "kyverno-argocd/hook-disabled kyverno
	// v1.14.0, Kubernetes v1.33.13, offline: MITIGATED on v2.14.3, v2.14.11".
	Measured []string
}

// Of reads the route From -> To from the expectations of data
// (suites/matrix.yaml), the outcomes the suite measured; nothing else.
//
// An expectation measures points: an outcome of a series (scenario, variant,
// component version, Kubernetes version, mode) on an ArgoCD release; the
// first expectation naming a point wins, as for a cell. SKIPPED measures
// nothing and is left out. Outcomes are compared along one series only,
// never across component versions, Kubernetes versions or modes.
//
// Along a series, in release order across lines and majors (v3.4.7 -> v3.5.1
// goes from the 3.4 line onto 3.5), two neighbouring points with different
// outcomes are a change somewhere in (Before, After]. It is on the path when
// the span starts on it, Before in [From, To), or ends on it, After in
// (From, To]: the user leaves the behaviour of Before or reaches that of
// After. So a change measured at v3.4.2 and v3.4.3 is on v3.4.2 -> v3.4.3 and
// v3.4.0 -> v3.4.7, not on v3.4.7 -> v3.5.1 (below From) nor v3.4.3 ->
// v3.5.1 (at From: the user already has it). A span that passes one end of
// the path is listed, Markdown saying which part of it is off the path; one
// around the whole path is not: nothing was measured on the path for it.
// RACE (measured going both ways) is an outcome of its own: RACE ->
// NOT_REPRODUCED is a change, RACE -> RACE none.
//
// A series without a change on the path is Measured when it has a point on a
// release the upgrade reaches, in (From, To]; it lists its points in [From,
// To].
//
// releases are the ArgoCD releases the suite knows: every published release
// from a change's Before to its After, as bisect.Releases lists them, for
// Exact to be true.
func Of(data *matrix.Data, releases []catalog.Release, from, to catalog.Release) (Route, error) {
	if from.Compare(to) >= 0 {
		return Route{}, fmt.Errorf("path %s -> %s: TO must be after FROM", from, to)
	}
	all, err := seriesOf(data)
	if err != nil {
		return Route{}, err
	}
	known := slices.SortedFunc(slices.Values(releases), catalog.Release.Compare)
	r := Route{From: from, To: to}
	var changes []Change
	var measured []measurement
	for _, s := range all {
		found := s.changesOn(from, to)
		for _, c := range found {
			changes = append(changes, s.change(all, known, c))
		}
		if len(found) == 0 {
			if m, ok := s.measuredOn(from, to); ok {
				measured = append(measured, m)
			}
		}
	}
	r.Changes = mergeChanges(changes)
	r.Measured = mergeMeasured(measured)
	return r, nil
}

// key names a series: one scenario's variant on one component version,
// Kubernetes version and mode.
type key struct {
	scenario, variant, componentVersion, kubernetes, mode string
}

// point is an outcome measured on a release and the runs it was read in.
type point struct {
	release catalog.Release
	outcome report.Outcome
	runs    []string
}

// series is what one key measured, in release order.
type series struct {
	key
	scenario matrix.Scenario
	points   []point
}

// seriesOf expands the measured expectations into series, ordered by
// scenario and variant as data declares them, then component version,
// Kubernetes version and mode.
func seriesOf(data *matrix.Data) ([]*series, error) {
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	byKey := map[key]*series{}
	for i, e := range data.Expectations {
		if e.Expected == report.Skipped {
			continue
		}
		s, err := data.Scenario(e.Scenario)
		if err != nil {
			return nil, err
		}
		rels, err := cat.Releases(matrix.ParseList(e.ArgoCD))
		if err != nil {
			return nil, fmt.Errorf("expectation %d (%s): %w", i+1, e.Scenario, err)
		}
		for _, k := range keysOf(s, e) {
			if byKey[k] == nil {
				byKey[k] = &series{key: k, scenario: s}
			}
			byKey[k].add(rels, e)
		}
	}
	all := slices.Collect(maps.Values(byKey))
	slices.SortFunc(all, func(a, b *series) int { return compareKeys(data, a.key, b.key) })
	for _, s := range all {
		slices.SortFunc(s.points, func(a, b point) int { return a.release.Compare(b.release) })
	}
	return all, nil
}

// keysOf are the series an expectation measures.
func keysOf(s matrix.Scenario, e matrix.Expectation) []key {
	variants := s.VariantNames()
	if e.Variant != "" && e.Variant != "*" {
		variants = matrix.ParseList(e.Variant)
	}
	versions := matrix.ParseList(e.ComponentVersion)
	if len(versions) == 0 {
		versions = []string{""}
	}
	var keys []key
	for _, v := range variants {
		for _, cv := range versions {
			for _, kube := range matrix.ParseList(e.Kubernetes) {
				keys = append(keys, key{s.Name, v, cv, kube, mode(e.Offline)})
			}
		}
	}
	return keys
}

// add records e's outcome on rels, except where an earlier expectation
// already did (the first match wins).
func (s *series) add(rels []catalog.Release, e matrix.Expectation) {
	for _, rel := range rels {
		if _, ok := s.at(rel); !ok {
			s.points = append(s.points, point{release: rel, outcome: e.Expected, runs: e.Runs})
		}
	}
}

// at is the point measured on rel.
func (s *series) at(rel catalog.Release) (point, bool) {
	for _, p := range s.points {
		if p.release.Compare(rel) == 0 {
			return p, true
		}
	}
	return point{}, false
}

// changesOn are the neighbouring points whose outcomes differ and whose span
// (before, after] starts on the path, before in [from, to), or ends on it,
// after in (from, to].
func (s *series) changesOn(from, to catalog.Release) [][2]point {
	var out [][2]point
	for i := 1; i < len(s.points); i++ {
		before, after := s.points[i-1].release, s.points[i].release
		starts := before.Compare(from) >= 0 && before.Compare(to) < 0
		ends := after.Compare(from) > 0 && after.Compare(to) <= 0
		if s.points[i-1].outcome != s.points[i].outcome && (starts || ends) {
			out = append(out, [2]point{s.points[i-1], s.points[i]})
		}
	}
	return out
}

// within reports whether rel is in [from, to].
func within(rel, from, to catalog.Release) bool {
	return rel.Compare(from) >= 0 && rel.Compare(to) <= 0
}

// change is the Change of a pair changesOn found.
func (s *series) change(all []*series, known []catalog.Release, pair [2]point) Change {
	before, after := pair[0], pair[1]
	return Change{
		Scenario: s.scenario.Name, Variant: s.variant,
		Component: s.scenario.Component, ComponentVersion: s.componentVersion,
		Kubernetes: s.kubernetes, Mode: s.mode,
		Before: before.release, After: after.release,
		BeforeOutcome: before.outcome, AfterOutcome: after.outcome,
		Exact:       neighbours(known, before.release, after.release),
		Runs:        union(before.runs, after.runs),
		Mitigations: s.mitigations(all, before.release, after.release),
		Upstream:    s.scenario.Upstream,
	}
}

// neighbours reports whether a and b are both in known with no release
// between them.
func neighbours(known []catalog.Release, a, b catalog.Release) bool {
	i := slices.IndexFunc(known, func(r catalog.Release) bool { return r.Compare(a) == 0 })
	return i >= 0 && i+1 < len(known) && known[i+1].Compare(b) == 0
}

// mitigations says what the scenario's mitigation variants, other than the
// series' own, measured at before and after on the series' component
// version (any, for a variant that installs none), Kubernetes version and
// mode: "hook-disabled MITIGATED on v2.14.3 and v2.14.21", "argocd-upgrade
// NOT_MITIGATED on v2.14.3, MITIGATED on v2.14.21".
func (s *series) mitigations(all []*series, before, after catalog.Release) []string {
	var out []string
	for _, other := range all {
		if !s.mitigatedBy(other) {
			continue
		}
		b, inBefore := other.at(before)
		a, inAfter := other.at(after)
		var m string
		switch {
		case inBefore && inAfter && a.outcome == b.outcome:
			m = fmt.Sprintf("%s on %s and %s", b.outcome, before, after)
		case inBefore && inAfter:
			m = fmt.Sprintf("%s on %s, %s on %s", b.outcome, before, a.outcome, after)
		case inBefore:
			m = fmt.Sprintf("%s on %s", b.outcome, before)
		case inAfter:
			m = fmt.Sprintf("%s on %s", a.outcome, after)
		default:
			continue
		}
		name := other.variant
		if s.componentVersion == "" && other.componentVersion != "" {
			name += " (" + s.scenario.Component + " " + other.componentVersion + ")"
		}
		out = append(out, name+" "+m)
	}
	return out
}

// mitigatedBy reports whether other is a mitigation of s's scenario, not
// s's own variant, measured where s was.
func (s *series) mitigatedBy(other *series) bool {
	return other.scenario.Name == s.scenario.Name && other.variant != s.variant &&
		variant(other.scenario, other.variant).Mitigation() &&
		(s.componentVersion == "" || other.componentVersion == s.componentVersion) &&
		other.kubernetes == s.kubernetes && other.mode == s.mode
}

// variant is s's variant named name (the zero Variant when none is).
func variant(s matrix.Scenario, name string) matrix.Variant {
	i := slices.IndexFunc(s.Variants, func(v matrix.Variant) bool { return v.Name == name })
	if i < 0 {
		return matrix.Variant{}
	}
	return s.Variants[i]
}

// measurement is a series measured on the path without a change: its
// outcome and where, before its Kubernetes versions are merged.
type measurement struct {
	key
	component string
	what      string
}

// measuredOn says what the series measured on the path, when it has a
// point in (from, to]: its outcome and its releases in [from, to] (one
// outcome: changesOn found no change there).
func (s *series) measuredOn(from, to catalog.Release) (measurement, bool) {
	var on []string
	var outcome report.Outcome
	reached := false
	for _, p := range s.points {
		if within(p.release, from, to) {
			on = append(on, p.release.String())
			outcome = p.outcome
			reached = reached || p.release.Compare(from) > 0
		}
	}
	if !reached {
		return measurement{}, false
	}
	return measurement{key: s.key, component: s.scenario.Component, what: fmt.Sprintf("%s on %s", outcome, strings.Join(on, ", "))}, true
}

// mergeChanges joins changes that differ in their Kubernetes version alone
// (and so in their runs), keeping the first one's place.
func mergeChanges(changes []Change) []Change {
	var out []Change
	for _, c := range changes {
		i := slices.IndexFunc(out, func(o Change) bool { return sameButKubernetes(o, c) })
		if i < 0 {
			out = append(out, c)
			continue
		}
		out[i].Kubernetes += "," + c.Kubernetes
		out[i].Runs = union(out[i].Runs, c.Runs)
	}
	return out
}

// sameButKubernetes reports whether a and b are one change on two Kubernetes
// versions.
func sameButKubernetes(a, b Change) bool {
	return a.Scenario == b.Scenario && a.Variant == b.Variant && a.ComponentVersion == b.ComponentVersion && a.Mode == b.Mode &&
		a.Before.Compare(b.Before) == 0 && a.After.Compare(b.After) == 0 &&
		a.BeforeOutcome == b.BeforeOutcome && a.AfterOutcome == b.AfterOutcome &&
		a.Exact == b.Exact && slices.Equal(a.Mitigations, b.Mitigations)
}

// mergeMeasured joins measurements that differ in their Kubernetes version
// alone and writes each as a line.
func mergeMeasured(ms []measurement) []string {
	type line struct {
		key   key // kubernetes left empty
		what  string
		comp  string
		kubes []string
	}
	var lines []line
	for _, m := range ms {
		k := m.key
		k.kubernetes = ""
		i := slices.IndexFunc(lines, func(l line) bool { return l.key == k && l.what == m.what })
		if i < 0 {
			lines = append(lines, line{key: k, what: m.what, comp: m.component})
			i = len(lines) - 1
		}
		lines[i].kubes = append(lines[i].kubes, m.kubernetes)
	}
	var out []string
	for _, l := range lines {
		name := l.key.scenario + "/" + l.key.variant
		if l.key.componentVersion != "" {
			name += " " + l.comp + " " + l.key.componentVersion
		}
		out = append(out, fmt.Sprintf("%s, Kubernetes %s%s: %s", name, strings.Join(l.kubes, ", "), withMode(l.key.mode), l.what))
	}
	return out
}

// compareKeys orders series by scenario and variant as data declares them,
// then by component version, Kubernetes version and mode.
func compareKeys(data *matrix.Data, a, b key) int {
	scenario := func(k key) int { return slices.Index(data.Names(), k.scenario) }
	variant := func(k key) int {
		s, _ := data.Scenario(k.scenario)
		return slices.Index(s.VariantNames(), k.variant)
	}
	return cmp.Or(cmp.Compare(scenario(a), scenario(b)), cmp.Compare(variant(a), variant(b)),
		catalog.CompareTags(a.componentVersion, b.componentVersion), catalog.CompareTags(a.kubernetes, b.kubernetes),
		strings.Compare(a.mode, b.mode))
}

// mode is an expectation's mode: "offline", "online", or "" for either.
func mode(offline *bool) string {
	switch {
	case offline == nil:
		return ""
	case *offline:
		return "offline"
	}
	return "online"
}

// withMode is ", offline" or ", online", or "" for either mode.
func withMode(mode string) string {
	if mode == "" {
		return ""
	}
	return ", " + mode
}

// union is a's and b's elements, sorted, each once.
func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// Patches are the releases Of takes as known when nothing better is
// at hand: on each line the expectations name, every patch from .0 to the
// newest they name (ArgoCD publishes a line's patch numbers in turn), so
// two consecutive patches are neighbours and a change between them Exact.
// A line's first release is never taken as the neighbour of the last
// patch of the line before it.
func Patches(cat *catalog.Catalog, data *matrix.Data) ([]catalog.Release, error) {
	newest := map[[2]int]int{}
	for _, e := range data.Expectations {
		for _, tag := range matrix.ParseList(e.ArgoCD) {
			rel, err := cat.Release(tag)
			if err != nil {
				return nil, fmt.Errorf("expectation %s/%s: %w", e.Scenario, e.Variant, err)
			}
			n := rel.Numbers()
			line := [2]int{n[0], n[1]}
			newest[line] = max(newest[line], n[2])
		}
	}
	var out []catalog.Release
	for line, last := range newest {
		for patch := range last + 1 {
			rel, err := cat.Release(fmt.Sprintf("v%d.%d.%d", line[0], line[1], patch))
			if err != nil {
				return nil, err
			}
			out = append(out, rel)
		}
	}
	slices.SortFunc(out, catalog.Release.Compare)
	return out, nil
}
