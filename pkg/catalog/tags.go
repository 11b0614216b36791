package catalog

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// Release is an ArgoCD release: a tag parsed and checked against the catalog
// once, where it enters the suite (a flag, the matrix file, bisect's range,
// a cluster kept from an earlier run), with the Go module that holds its
// sources. What takes a Release checks nothing again; the zero Release is
// none.
type Release struct {
	tag         string
	module      string
	n           [3]int
	rc          int  // -rcN; 0 for a release
	fromSources bool // offline, built from a source tree (argocd.sources.from)
}

// Release parses an ArgoCD tag, vMAJOR.MINOR.PATCH with an optional -rcN, and
// finds the module of its major version in the catalog. Any well-formed tag
// of a known major version is accepted: whether it was published is the
// module proxy's to say (runner.ReleaseExists asks it).
func (c *Catalog) Release(tag string) (Release, error) {
	m := releaseTag.FindStringSubmatch(tag)
	if m == nil {
		return Release{}, fmt.Errorf("argocd version %q is not a release tag (like %s)", tag, strings.Join(c.ArgoCD.Default, ", "))
	}
	mod, ok := c.ArgoCD.Modules["v"+m[1]]
	if !ok {
		return Release{}, fmt.Errorf("argocd version %q: no module for major version v%s (known: %s)", tag, m[1], strings.Join(keys(c.ArgoCD.Modules), ", "))
	}
	r := Release{tag: tag, module: mod}
	for i := range 3 {
		r.n[i], _ = strconv.Atoi(m[i+1])
	}
	if m[4] != "" {
		r.rc, _ = strconv.Atoi(strings.TrimPrefix(m[4], "-rc"))
	}
	if src := c.ArgoCD.Sources; src != nil && src.From != "" {
		// by number: a release candidate of that line has the nested module too
		r.fromSources = r.n[0] > 0 && compareNumbers(r.n, TagNumbers(src.From)) >= 0 &&
			(src.Until == "" || compareNumbers(r.n, TagNumbers(src.Until)) < 0)
	}
	return r, nil
}

func compareNumbers(a, b [3]int) int {
	for i := range 3 {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return 0
}

// MustRelease parses a tag fixed in code (a test's) with the embedded
// catalog, as regexp.MustCompile does a pattern: a bad one panics.
func MustRelease(tag string) Release {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	r, err := c.Release(tag)
	if err != nil {
		panic(err)
	}
	return r
}

// Releases parses tags with Release, in their order.
func (c *Catalog) Releases(tags []string) ([]Release, error) {
	out := make([]Release, len(tags))
	for i, tag := range tags {
		r, err := c.Release(tag)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// String is the tag, as the user and upstream write it.
func (r Release) String() string { return r.tag }

// Module is the Go module that holds the release's sources.
func (r Release) Module() string { return r.module }

// FromSources reports whether the release's module zip does not build
// (catalog argocd.sources.from, before its until): offline its images and install.yaml come
// from a source tree of the tag the user provides (ARGOCD_SOURCES); online
// the upstream images and the module zip's install.yaml serve as for any
// other release.
func (r Release) FromSources() bool { return r.fromSources }

// Image is the release's image under upstream's name (offline, the suite
// builds it under that name).
func (r Release) Image() string { return "quay.io/argoproj/argocd:" + r.tag }

// IsZero reports whether r is no release.
func (r Release) IsZero() bool { return r.tag == "" }

// Numbers are the major, minor and patch numbers.
func (r Release) Numbers() [3]int { return r.n }

// Compare orders releases by version: v2.14.3 before v2.14.21, a release
// candidate before its release.
func (r Release) Compare(o Release) int {
	if c := compareNumbers(r.n, o.n); c != 0 {
		return c
	}
	rc := func(x Release) int {
		if x.rc == 0 {
			return 1 << 30
		}
		return x.rc
	}
	return cmp.Or(cmp.Compare(rc(r), rc(o)), strings.Compare(r.tag, o.tag))
}

// CompareTags orders tags by version number (v2.14.3 before v2.14.21), for
// what holds them as text: the report's columns, the runs on disk.
func CompareTags(a, b string) int {
	pa, pb := TagNumbers(a), TagNumbers(b)
	for i := range 3 {
		if pa[i] != pb[i] {
			return pa[i] - pb[i]
		}
	}
	return strings.Compare(a, b)
}

// TagNumbers are a tag's major, minor and patch numbers; what does not
// parse (a suffix, a missing part) counts as 0.
func TagNumbers(tag string) [3]int {
	var n [3]int
	_, _ = fmt.Sscanf(strings.TrimPrefix(tag, "v"), "%d.%d.%d", &n[0], &n[1], &n[2])
	return n
}
