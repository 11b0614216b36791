package route

import (
	"fmt"
	"strings"
)

// The renderings of a route: route.md's section (Markdown) and the
// report's notes (Notes).

// Markdown renders the route as a section: a table of its changes, or a
// sentence saying none was measured; then what was measured without one.
func (r Route) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Measured changes on the path %s -> %s\n\n", r.From, r.To)
	if len(r.Changes) == 0 {
		fmt.Fprintf(&b, "The suite measured no behaviour change on this path (the expectations of suites/matrix.yaml).")
		if len(r.Measured) == 0 {
			fmt.Fprintf(&b, " Nothing was measured on it either: no expectation names a release after %s up to %s.\n", r.From, r.To)
			return b.String()
		}
		b.WriteString(" Measured on it:\n\n")
		writeList(&b, r.Measured)
		return b.String()
	}
	b.WriteString("From the expectations of suites/matrix.yaml: each change lies after the release measured before it, up to the one measured after it.\n\n")
	b.WriteString("| scenario | variant | component | Kubernetes | before | after | where | runs | mitigations | upstream |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Changes {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s on %s | %s on %s | %s | %s | %s | %s |\n",
			c.Scenario, c.Variant, component(c),
			strings.ReplaceAll(c.Kubernetes, ",", ", ")+withMode(c.Mode),
			c.BeforeOutcome, c.Before, c.AfterOutcome, c.After, r.where(c),
			strings.Join(c.Runs, ", "), orDash(strings.Join(c.Mitigations, "; ")), c.Upstream)
	}
	if len(r.Measured) > 0 {
		b.WriteString("\nMeasured on the path without a change:\n\n")
		writeList(&b, r.Measured)
	}
	return b.String()
}

// where says where on the path c lies: at After when it is exact, else
// between Before and After, and which part of that span is off the path.
func (r Route) where(c Change) string {
	if c.Exact {
		return "at " + c.After.String()
	}
	w := fmt.Sprintf("between %s and %s", c.Before, c.After)
	if c.Before.Compare(r.From) < 0 {
		w += fmt.Sprintf("; may lie at or before %s, off the path", r.From)
	}
	if c.After.Compare(r.To) > 0 {
		w += fmt.Sprintf("; may lie after %s, off the path", r.To)
	}
	return w
}

// component is the component and version a change was measured with, "-"
// for a variant that installs none.
func component(c Change) string {
	if c.ComponentVersion == "" {
		return "-"
	}
	return c.Component + " " + c.ComponentVersion
}

func writeList(b *strings.Builder, items []string) {
	for _, item := range items {
		fmt.Fprintf(b, "- %s\n", item)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Notes are the route in the report's notes: a line per change, or one
// saying none was measured and how much was (route.md has the table).
func (r Route) Notes() []string {
	if len(r.Changes) == 0 {
		return []string{fmt.Sprintf("route %s -> %s: the suite measured no behaviour change on this path; %d scenario variant(s) measured on it without one (route.md)",
			r.From, r.To, len(r.Measured))}
	}
	var out []string
	for _, c := range r.Changes {
		out = append(out, fmt.Sprintf("route %s -> %s: %s %s (%s): %s on %s -> %s on %s, %s; runs %s; mitigations: %s; %s",
			r.From, r.To, c.Scenario, c.Variant, component(c), c.BeforeOutcome, c.Before, c.AfterOutcome, c.After, r.where(c),
			strings.Join(c.Runs, ", "), orDash(strings.Join(c.Mitigations, "; ")), orDash(c.Upstream)))
	}
	return out
}
