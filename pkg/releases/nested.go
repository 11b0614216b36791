package releases

import (
	"context"
	"fmt"
	"strings"
)

// Nested is a module of a release's own repository that its go.mod replaces
// with a directory of its tree (`replace github.com/argoproj/argo-cd/gitops-engine/v3
// => ./gitops-engine`): the release's module zip leaves it out.
type Nested struct {
	Path    string // the module replaced
	Dir     string // the directory it is replaced with
	Require string // the version go.mod requires it at; "" when none
}

// NestedModules reads a go.mod's nested modules, in the order of its
// replaces. Only what this needs is parsed: require and replace lines, in
// blocks or alone, comments dropped.
func NestedModules(gomod []byte) []Nested {
	var out []Nested
	required := map[string]string{}
	block := ""
	for _, line := range strings.Split(string(gomod), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
			continue
		case block != "" && f[0] == ")":
			block = ""
			continue
		case block == "" && len(f) == 2 && f[1] == "(" && (f[0] == "require" || f[0] == "replace"):
			block = f[0]
			continue
		case block == "" && (f[0] == "require" || f[0] == "replace"):
			// a one-line directive
			out, required = directive(f[0], f[1:], out, required)
			continue
		case block == "":
			continue // module, go, toolchain, exclude, ...
		}
		out, required = directive(block, f, out, required)
	}
	for i := range out {
		out[i].Require = required[out[i].Path]
	}
	return out
}

// directive reads one require or replace entry (the keyword left out).
func directive(kind string, f []string, out []Nested, required map[string]string) ([]Nested, map[string]string) {
	switch kind {
	case "require":
		if len(f) >= 2 {
			required[f[0]] = f[1]
		}
	case "replace":
		arrow := -1
		for i, w := range f {
			if w == "=>" {
				arrow = i
			}
		}
		if arrow < 1 || arrow+1 >= len(f) {
			return out, required
		}
		if to := f[arrow+1]; strings.HasPrefix(to, "./") || strings.HasPrefix(to, "../") {
			out = append(out, Nested{Path: f[0], Dir: to})
		}
	}
	return out, required
}

// moduleZips says, offline, whether a release that replaces modules with
// directories of its tree builds from module zips, from what the module
// proxy answers: each nested module must be required at the release's own
// tag (tagged with it: argo-cd/v3@v3.6.1 requires
// github.com/argoproj/argo-cd/gitops-engine/v3 v3.6.1) and served. how says
// what it builds from, or why not; nested is false for a go.mod with none.
func (f *Finder) moduleZips(ctx context.Context, module, version string) (how string, ok, nested bool) {
	gomod, err := f.Source.GoMod(ctx, module, version)
	if err != nil {
		return fmt.Sprintf("its go.mod could not be read: %s", err), false, true
	}
	ns := NestedModules(gomod)
	if len(ns) == 0 {
		return "", true, false
	}
	parts := []string{module + "@" + version}
	for _, n := range ns {
		if n.Require != version {
			what := "requires no version of it"
			if n.Require != "" {
				what = "pins " + n.Require + ", not the release's tag"
				if err := f.Source.Lookup(ctx, n.Path, n.Require); err != nil {
					what += " (the module proxy: " + strings.TrimPrefix(err.Error(), n.Path+"@"+n.Require+": ") + ")"
				}
			}
			return fmt.Sprintf("%s@%s's go.mod replaces %s with %s (a nested module its zip leaves out) and %s: only a source tree of the tag builds it offline",
				module, version, n.Path, n.Dir, what), false, true
		}
		if err := f.Source.Lookup(ctx, n.Path, n.Require); err != nil {
			return fmt.Sprintf("%s@%s's go.mod replaces %s with %s, tagged with the release, and the module proxy does not serve %s@%s: %s",
				module, version, n.Path, n.Dir, n.Path, n.Require, strings.TrimPrefix(err.Error(), n.Path+"@"+n.Require+": ")), false, true
		}
		parts = append(parts, n.Path+"@"+n.Require+" as "+n.Dir)
	}
	return "built from the module proxy's " + strings.Join(parts, " and ") + " (the nested module tagged with the release)", true, true
}
