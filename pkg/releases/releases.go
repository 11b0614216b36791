package releases

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Releases is what `conformance releases` prints (as JSON for the nightly).
type Releases struct {
	Mode       images.Mode `json:"mode"`
	ArgoCD     ArgoCD      `json:"argocd"`
	Components []Component `json:"components"`
	// Shards and NotRun are the plan (Plan fills them): what the nightly
	// runs, and what it cannot run in this mode, with why.
	Shards []Shard  `json:"shards"`
	NotRun []NotRun `json:"not_run,omitempty"`
	Tiers  []Tier   `json:"tiers"`
	// Problems are lookups that failed in a way that leaves something
	// untold (a module whose versions nobody listed).
	Problems []string `json:"problems,omitempty"`
}

// ArgoCD is what was found of ArgoCD's releases.
type ArgoCD struct {
	// Supported are the supported minor lines ("3.6"), newest first: the
	// catalog's supportedLines newest among the releases found. Empty when
	// no listing answered: could not tell.
	Supported []string  `json:"supported"`
	Lines     []Line    `json:"lines"`
	Seeds     []Release `json:"seeds"`
	Lookups   []string  `json:"lookups"`
}

// Line is one supported minor line.
type Line struct {
	Line   string `json:"line"`
	Newest string `json:"newest"`
	// NewestObtainable is the newest patch this mode can build or pull, ""
	// when none.
	NewestObtainable string    `json:"newest_obtainable,omitempty"`
	Releases         []Release `json:"releases"` // oldest first
	// Offline says, offline, whether the line's newest patch builds and
	// from what, or why not, from what the module proxy answered for it
	// and for the nested modules its go.mod names.
	Offline string `json:"offline,omitempty"`
}

// Release is one version, where it was found, and whether this mode can
// build or pull it.
type Release struct {
	Version    string `json:"version"`
	Found      string `json:"found"`
	Obtainable bool   `json:"obtainable"`
	How        string `json:"how"` // how it is built or pulled, or why it cannot be
}

// Component is what was found of one component's releases.
type Component struct {
	Name             string    `json:"component"`
	Module           string    `json:"module"`
	Scenarios        []string  `json:"scenarios"`
	Pins             []Release `json:"pins"`
	Newest           Release   `json:"newest"`
	NewestObtainable string    `json:"newest_obtainable,omitempty"`
	Lookups          []string  `json:"lookups"`
}

// Where a version was found.
const (
	FoundList   = "module proxy list"
	FoundLookup = "module proxy, exact version"
	FoundTags   = "repository tags"
	FoundPin    = "catalog pin"
)

// Finder reads the releases.
type Finder struct {
	Catalog *catalog.Catalog
	Matrix  *matrix.Data
	Source  Source
	// Repo is the suite's checkout: a relative path in a variable naming the
	// user's sources (ARGOCD_SOURCES) is taken from it.
	Repo string
	Mode images.Mode // Online or Offline
}

// stable is a release version: no pre-release, no pseudo-version.
var stable = regexp.MustCompile(`^v(\d+)\.(\d+)\.(\d+)$`)

// Find reads every module's versions and says what this mode can run.
func (f *Finder) Find(ctx context.Context) (*Releases, error) {
	if f.Mode != images.Online && f.Mode != images.Offline {
		return nil, fmt.Errorf("releases: mode %q: want online or offline", f.Mode)
	}
	r := &Releases{Mode: f.Mode, ArgoCD: ArgoCD{Supported: []string{}}}
	if err := f.argocd(ctx, r); err != nil {
		return nil, err
	}
	for _, name := range f.components() {
		c, err := f.component(ctx, name)
		if err != nil {
			return nil, err
		}
		r.Components = append(r.Components, c)
	}
	return r, ctx.Err()
}

// module is what is known of one module's versions.
type module struct {
	path    string
	listed  bool              // the proxy's list or the repository's tags answered
	found   map[string]string // version: where it was found
	served  map[string]bool   // the module proxy serves it (listed or looked up)
	refused map[string]string // looked up, not served: the proxy's answer
	lookups []string
}

func (f *Finder) read(ctx context.Context, path string, pins []string) *module {
	m := &module{path: path, found: map[string]string{}, served: map[string]bool{}, refused: map[string]string{}}
	if vs, err := f.Source.Versions(ctx, path); err != nil {
		m.lookups = append(m.lookups, fmt.Sprintf("%s: module proxy list: %s", path, err))
	} else {
		n := m.add(vs, FoundList, true)
		m.listed = true
		m.lookups = append(m.lookups, fmt.Sprintf("%s: module proxy list: %d releases", path, n))
	}
	if f.Mode == images.Online {
		if vs, err := f.Source.Tags(ctx, path); err != nil {
			m.lookups = append(m.lookups, fmt.Sprintf("%s: repository tags: %s", path, err))
		} else {
			n := m.add(vs, FoundTags, false)
			m.listed = true
			m.lookups = append(m.lookups, fmt.Sprintf("%s: repository tags: %d releases", path, n))
		}
	}
	m.add(pins, FoundPin, false)
	return m
}

// add records the stable versions of vs and returns how many there were.
func (m *module) add(vs []string, where string, served bool) int {
	n := 0
	for _, v := range vs {
		if !stable.MatchString(v) {
			continue
		}
		n++
		if _, ok := m.found[v]; !ok {
			m.found[v] = where
		}
		if served {
			m.served[v] = true
		}
	}
	return n
}

// lookup asks the proxy for the versions not known to be served, a few at
// a time, and records the answers.
func (f *Finder) lookup(ctx context.Context, m *module, versions []string) {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
	)
	sem := make(chan struct{}, 4)
	for _, v := range versions {
		mu.Lock() // the lookups already started write these maps
		known := m.served[v] || m.refused[v] != ""
		mu.Unlock()
		if known {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			err := f.Source.Lookup(ctx, m.path, v)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				m.served[v] = true
				if _, ok := m.found[v]; !ok {
					m.found[v] = FoundLookup
				}
				return
			}
			m.refused[v] = strings.TrimPrefix(err.Error(), m.path+"@"+v+": ")
			if errors.Is(err, ErrNotPublished) {
				m.refused[v] = "not published"
			}
		}()
	}
	wg.Wait()
}

// walk asks for the versions past from that a short list leaves out: in
// from's minor, then minor after minor, the patches in batches of walkGap
// until a batch has none served (a refused patch says nothing of the next:
// the proxy refuses Kube-OVN's v1.15.5, v1.16.0 and v1.16.1 and serves
// v1.16.2), and no further than walkMinors minors in a row with none served
// (patchOnly: from's minor only). It records what it asked.
func (f *Finder) walk(ctx context.Context, m *module, from string, patchOnly bool) {
	n := numbers(from)
	cur := from
	var notServed []string
	asked := 0
	for minor, misses := n[1], 0; misses < walkMinors && asked < walkLimit; minor++ {
		patch, found := 0, false
		if minor == n[1] {
			patch = n[2] + 1
		}
		for asked < walkLimit {
			asked += walkGap
			batch := make([]string, walkGap)
			for i := range batch {
				batch[i] = fmt.Sprintf("v%d.%d.%d", n[0], minor, patch+i)
			}
			f.lookup(ctx, m, batch)
			last := -1
			for i, v := range batch {
				if m.served[v] {
					last, cur, found = i, v, true
				}
			}
			for _, v := range batch[last+1:] { // the refusals past the newest served, which ended the walk
				notServed = append(notServed, v+" "+short(m.refused[v]))
			}
			if last < 0 {
				break
			}
			notServed = notServed[:len(notServed)-(walkGap-1-last)]
			patch += last + 1
		}
		if patchOnly {
			break
		}
		if found || minor == n[1] {
			misses = 0
		} else {
			misses++
		}
	}
	if cur != from {
		m.lookups = append(m.lookups, fmt.Sprintf("%s: walked on from %s to %s; not served past it: %s", m.path, from, cur, strings.Join(tail(notServed, 6), ", ")))
	} else {
		m.lookups = append(m.lookups, fmt.Sprintf("%s: past %s not served: %s", m.path, from, strings.Join(tail(notServed, 6), ", ")))
	}
}

// walkGap is how many patches in a row the walk asks for before it takes a
// minor as done, walkMinors how many minors in a row with none served end
// it, and walkLimit how many versions it asks for in all.
const (
	walkGap    = 4
	walkMinors = 2
	walkLimit  = 64
)

// tail is the last n of vs, with how many were left out.
func tail(vs []string, n int) []string {
	if len(vs) <= n {
		return vs
	}
	return append([]string{fmt.Sprintf("(%d more)", len(vs)-n)}, vs[len(vs)-n:]...)
}

func short(refused string) string {
	if refused == "not published" {
		return "(not published)"
	}
	return "(refused or unanswered)"
}

// argocd finds the supported lines, their patches and the seeds.
func (f *Finder) argocd(ctx context.Context, r *Releases) error {
	seeds := f.seeds()
	byModule := map[string]*module{}
	var mods []*module
	for _, major := range slices.Sorted(maps.Keys(f.Catalog.ArgoCD.Modules)) {
		path := f.Catalog.ArgoCD.Modules[major]
		var pins []string
		for _, s := range seeds {
			if strings.HasPrefix(s, major+".") {
				pins = append(pins, s)
			}
		}
		m := f.read(ctx, path, pins)
		byModule[major] = m
		mods = append(mods, m)
	}
	// the newest major's module carries the newest lines: walk it on from its
	// newest release (a short list misses what came after)
	newestMajor := mods[len(mods)-1]
	if v := newest(newestMajor.found); v != "" {
		f.walk(ctx, newestMajor, v, false)
	}
	lines := map[string][]string{}
	for _, m := range mods {
		for v, where := range m.found {
			if where == FoundPin {
				continue // a pin is no evidence that its line is current
			}
			lines[lineOf(v)] = append(lines[lineOf(v)], v)
		}
	}
	names := slices.SortedFunc(maps.Keys(lines), func(a, b string) int { return -catalog.CompareTags("v"+a+".0", "v"+b+".0") })
	want := f.Catalog.SupportedLineCount()
	switch {
	case !newestMajor.listed:
		// the newest lines are in the newest major's module: without its
		// listing, the lines found would be older ones
		r.Problems = append(r.Problems, fmt.Sprintf("ArgoCD: no listing of %s answered: which lines are supported could not be told", newestMajor.path))
	case len(names) < want:
		r.Problems = append(r.Problems, fmt.Sprintf("ArgoCD: %d minor line(s) found, %d wanted: which lines are supported could not be told", len(names), want))
	default:
		r.ArgoCD.Supported = names[:want]
	}
	for _, name := range r.ArgoCD.Supported {
		major := "v" + strings.Split(name, ".")[0]
		m := byModule[major]
		vs := lines[name]
		slices.SortFunc(vs, catalog.CompareTags)
		// fill the line's gaps (a short list) and walk past its newest patch
		top := numbers(vs[len(vs)-1])
		var patches []string
		for p := 0; p < top[2]; p++ {
			patches = append(patches, fmt.Sprintf("v%d.%d.%d", top[0], top[1], p))
		}
		f.lookup(ctx, m, patches)
		if name != r.ArgoCD.Supported[0] {
			f.walk(ctx, m, vs[len(vs)-1], true)
		}
		line := Line{Line: name}
		for v := range m.found {
			if lineOf(v) == name {
				line.Releases = append(line.Releases, f.argocdRelease(ctx, m, v))
			}
		}
		slices.SortFunc(line.Releases, func(a, b Release) int { return catalog.CompareTags(a.Version, b.Version) })
		line.Newest = line.Releases[len(line.Releases)-1].Version
		for _, rel := range line.Releases {
			if rel.Obtainable {
				line.NewestObtainable = rel.Version
			}
		}
		if f.Mode == images.Offline {
			line.Offline = f.lineOffline(ctx, m, line.Releases[len(line.Releases)-1])
		}
		r.ArgoCD.Lines = append(r.ArgoCD.Lines, line)
	}
	for _, s := range seeds {
		m := byModule["v"+strconv.Itoa(numbers(s)[0])]
		if m == nil {
			return fmt.Errorf("releases: seed %s: no module for its major version in the catalog", s)
		}
		f.lookup(ctx, m, []string{s})
		r.ArgoCD.Seeds = append(r.ArgoCD.Seeds, f.argocdRelease(ctx, m, s))
	}
	for _, m := range mods {
		r.ArgoCD.Lookups = append(r.ArgoCD.Lookups, m.lookups...)
		if len(m.found) == 0 {
			r.Problems = append(r.Problems, "ArgoCD: no version of "+m.path+" was found")
		}
	}
	return nil
}

// seeds are the ArgoCD releases the matrix runs today: the catalog's
// default axis and smoke release, and each scenario's own axis.
func (f *Finder) seeds() []string {
	seeds := slices.Clone(f.Catalog.ArgoCD.Default)
	if f.Catalog.ArgoCD.Smoke != "" {
		seeds = append(seeds, f.Catalog.ArgoCD.Smoke)
	}
	for _, s := range f.Matrix.Scenarios {
		seeds = append(seeds, s.ArgoCDTags(nil)...)
	}
	slices.SortFunc(seeds, catalog.CompareTags)
	return slices.Compact(seeds)
}

// lineOffline says how a line's newest patch builds offline, or why not:
// where it needs a tree the user has not given, what its go.mod pins for
// the nested module and what the module proxy answered for that pin.
func (f *Finder) lineOffline(ctx context.Context, m *module, newest Release) string {
	if newest.Obtainable {
		return newest.Version + ": " + newest.How
	}
	if !m.served[newest.Version] {
		return newest.Version + ": " + newest.How
	}
	r, err := f.Catalog.Release(newest.Version)
	if err != nil || !r.FromSources() {
		return newest.Version + ": " + newest.How
	}
	how, _, nested := f.moduleZips(ctx, m.path, newest.Version)
	if !nested {
		return newest.Version + ": " + newest.How
	}
	return newest.Version + ": " + how + "; online, or with a tree of the tag in " + f.Catalog.ArgoCD.Sources.Env
}

// argocdRelease says how this mode gets an ArgoCD release.
func (f *Finder) argocdRelease(ctx context.Context, m *module, v string) Release {
	rel := Release{Version: v, Found: m.found[v]}
	r, err := f.Catalog.Release(v)
	if err != nil {
		rel.How = err.Error()
		return rel
	}
	tree, err := Obtainable(f.Catalog, r, f.Mode, f.Repo)
	if err != nil {
		rel.How = err.Error()
		return rel
	}
	if tree != "" {
		rel.Obtainable, rel.How = true, "built from the source tree in "+tree
		return rel
	}
	if !m.served[v] {
		rel.How = "the module proxy does not serve " + m.path + "@" + v + ": " + orUnknown(m.refused[v])
		return rel
	}
	rel.Obtainable = true
	if f.Mode == images.Offline {
		rel.How = "built from the module proxy's " + m.path + "@" + v
		if src := f.Catalog.ArgoCD.Sources; src != nil && src.From != "" && catalog.CompareTags(v, src.From) >= 0 {
			// past the source trees (argocd.sources.until): the nested modules' own zips
			how, ok, nested := f.moduleZips(ctx, m.path, v)
			if nested {
				rel.Obtainable, rel.How = ok, how
			}
		}
	} else {
		rel.How = "upstream images; install.yaml from the module proxy's " + m.path + "@" + v
	}
	return rel
}

// components are the components the matrix's scenarios install, in order.
func (f *Finder) components() []string {
	var names []string
	for _, s := range f.Matrix.Scenarios {
		if !slices.Contains(names, s.Component) {
			names = append(names, s.Component)
		}
	}
	return names
}

// component finds one component's pins and newest release.
func (f *Finder) component(ctx context.Context, name string) (Component, error) {
	comp, err := f.Catalog.Component(name)
	if err != nil {
		return Component{}, err
	}
	c := Component{Name: name, Module: comp.Module}
	for _, s := range f.Matrix.Scenarios {
		if s.Component == name {
			c.Scenarios = append(c.Scenarios, s.Name)
		}
	}
	if comp.Module == "" {
		return c, fmt.Errorf("releases: component %s has no module in the catalog", name)
	}
	m := f.read(ctx, comp.Module, comp.Versions)
	f.lookup(ctx, m, comp.Versions)
	if v := newest(m.found); v != "" {
		f.walk(ctx, m, v, false)
	}
	for _, v := range comp.Versions {
		c.Pins = append(c.Pins, f.componentRelease(comp, m, v))
	}
	// newest first, down to the newest pin: the first this mode can get
	var candidates []string
	for v := range m.found {
		candidates = append(candidates, v)
	}
	slices.SortFunc(candidates, func(a, b string) int { return catalog.CompareTags(b, a) })
	for i, v := range candidates {
		f.lookup(ctx, m, []string{v})
		rel := f.componentRelease(comp, m, v)
		if i == 0 {
			c.Newest = rel
		}
		if rel.Obtainable {
			c.NewestObtainable = v
			break
		}
		if slices.Contains(comp.Versions, v) || i >= maxCandidates {
			break
		}
	}
	c.Lookups = m.lookups
	return c, nil
}

// maxCandidates bounds how many releases newer than the pins are asked for
// before the newest obtainable one is given up on.
const maxCandidates = 4

// componentRelease says how this mode gets a component release.
func (f *Finder) componentRelease(comp catalog.Component, m *module, v string) Release {
	rel := Release{Version: v, Found: m.found[v]}
	if why := comp.UnobtainableWhy(v, f.Mode == images.Offline); why != "" {
		rel.How = "not obtainable here (the catalog's unobtainable): " + why
		return rel
	}
	src := comp.Sources
	if f.Mode == images.Offline && src.Needs(v) && src.Tree != "" {
		tree, err := sources.TreesOf(src).Find(f.Repo, v)
		if err != nil {
			rel.How = err.Error()
			return rel
		}
		rel.Obtainable, rel.How = true, "built from the source tree in "+tree.From(src.Env)
		return rel
	}
	if f.Mode == images.Online && src != nil && comp.OnlineURL != "" {
		// its chart comes from the project's chart repository, its images are pulled
		rel.Obtainable, rel.How = true, "the chart from "+comp.OnlineURL+", upstream images"
		return rel
	}
	if !m.served[v] {
		rel.How = "the module proxy does not serve " + m.path + "@" + v + ": " + orUnknown(m.refused[v])
		return rel
	}
	rel.Obtainable = true
	if f.Mode == images.Online {
		rel.How = "files from the module proxy's " + m.path + "@" + v + ", upstream images"
		return rel
	}
	rel.How = "built from the module proxy's " + m.path + "@" + v
	if f.Mode == images.Offline && src.Needs(v) && src.Chart {
		chartRel := strings.ReplaceAll(comp.Files["chart"], "{version}", strings.TrimPrefix(v, "v"))
		parts := strings.Split(chartRel, "/")
		name := parts[max(len(parts)-2, 0)]
		chart, err := sources.UserCharts{Env: src.Env, Path: chartRel}.Find(f.Repo, name, strings.TrimPrefix(v, "v"))
		if err != nil {
			rel.Obtainable, rel.How = false, err.Error()
			return rel
		}
		rel.How += "; the chart from " + chart.From(src.Env)
	}
	return rel
}

func orUnknown(s string) string {
	if s == "" {
		return "not asked"
	}
	return s
}

// newest is the newest stable version among found's.
func newest(found map[string]string) string {
	best := ""
	for v := range found {
		if best == "" || catalog.CompareTags(v, best) > 0 {
			best = v
		}
	}
	return best
}

func numbers(v string) [3]int { return catalog.TagNumbers(v) }

// lineOf is a version's minor line: v3.4.7 is "3.4".
func lineOf(v string) string {
	n := numbers(v)
	return fmt.Sprintf("%d.%d", n[0], n[1])
}
