package catalog

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// SupportedLines is how many minor lines upstream supports when the catalog
// does not say (argocd.supportedLines): ArgoCD patches the three newest (its
// release policy), and every older line is end-of-life.
const SupportedLines = 3

// SupportedLineCount is how many of the newest minor lines upstream
// supports: the catalog's argocd.supportedLines, else SupportedLines. Every
// reader of the supported lines (Support, make releases, make list) counts
// with it.
func (c *Catalog) SupportedLineCount() int {
	return cmp.Or(c.ArgoCD.SupportedLines, SupportedLines)
}

// The answers Support gives for a release.
const (
	Supported    = "supported"
	EndOfLife    = "end-of-life"
	CouldNotTell = "could not tell"
)

// Lister lists the versions a Go module was published at (the module
// proxy's list; sources.ProxyLister asks it).
type Lister interface {
	Versions(ctx context.Context, module string) ([]string, error)
}

// Line is a minor release line and the newest patch of it listed.
type Line struct {
	Major, Minor int
	Newest       string
}

// String is the line as upstream names it: "3.5".
func (l Line) String() string { return fmt.Sprintf("%d.%d", l.Major, l.Minor) }

// Support is which ArgoCD minor lines upstream supports, read from what the
// module proxy lists, never guessed: Lines, newest first, or, when a listing
// failed, none and Why.
type Support struct {
	Lines []Line
	Why   string // why it could not tell; "" when it could
}

// Support reads the supported lines: the SupportedLineCount newest minor lines
// among the releases (release candidates left out) the lister gives for every
// major version's module in the catalog. Any listing that fails makes it
// unable to tell (a missing major would move the lines back a major).
func (c *Catalog) Support(ctx context.Context, l Lister) Support {
	newest := map[[2]int]Release{}
	for _, major := range keys(c.ArgoCD.Modules) {
		mod := c.ArgoCD.Modules[major]
		tags, err := l.Versions(ctx, mod)
		if err != nil {
			return Support{Why: fmt.Sprintf("the module proxy's list of %s: %v", mod, err)}
		}
		for _, tag := range tags {
			rel, err := c.Release(tag)
			if err != nil || rel.rc != 0 || rel.Module() != mod {
				continue // a pre-release, or a tag that is no release of this module
			}
			k := [2]int{rel.n[0], rel.n[1]}
			if have, ok := newest[k]; !ok || have.Compare(rel) < 0 {
				newest[k] = rel
			}
		}
	}
	if len(newest) == 0 {
		return Support{Why: "the module proxy lists no ArgoCD release"}
	}
	var lines []Line
	for k, rel := range newest {
		lines = append(lines, Line{Major: k[0], Minor: k[1], Newest: rel.String()})
	}
	slices.SortFunc(lines, func(a, b Line) int { return cmp.Or(cmp.Compare(b.Major, a.Major), cmp.Compare(b.Minor, a.Minor)) })
	return Support{Lines: lines[:min(c.SupportedLineCount(), len(lines))]}
}

// Of says whether upstream supports rel's line: Supported, EndOfLife, or
// CouldNotTell.
func (s Support) Of(rel Release) string {
	if _, ok := s.Line(rel); ok {
		return Supported
	}
	if len(s.Lines) == 0 {
		return CouldNotTell
	}
	return EndOfLife
}

// Line is rel's line when upstream supports it.
func (s Support) Line(rel Release) (Line, bool) {
	for _, l := range s.Lines {
		if l.Major == rel.n[0] && l.Minor == rel.n[1] {
			return l, true
		}
	}
	return Line{}, false
}

// String says what was read: "3.6 (newest v3.6.1), 3.5 (...), 3.4 (...)",
// or that it could not tell, and why.
func (s Support) String() string {
	if len(s.Lines) == 0 {
		return CouldNotTell + " (" + s.Why + ")"
	}
	parts := make([]string, len(s.Lines))
	for i, l := range s.Lines {
		parts[i] = fmt.Sprintf("%s (newest %s)", l, l.Newest)
	}
	return strings.Join(parts, ", ")
}
