package releases

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// Text renders the releases and the plan for people (make releases).
func (r *Releases) Text() string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	flush := func() { _ = w.Flush() }

	if len(r.ArgoCD.Supported) > 0 {
		fmt.Fprintf(&b, "ArgoCD: supported lines %s (the newest minor lines found); mode %s\n", strings.Join(r.ArgoCD.Supported, ", "), r.Mode)
	} else {
		fmt.Fprintf(&b, "ArgoCD: supported lines: could not tell (see the lookups below); mode %s\n", r.Mode)
	}
	fmt.Fprintln(w, "  line\tnewest\tnewest here\tpatches (* this mode can run)")
	for _, l := range r.ArgoCD.Lines {
		var patches []string
		for _, rel := range l.Releases {
			patches = append(patches, rel.Version+star(rel.Obtainable))
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", l.Line, l.Newest, dash(l.NewestObtainable), strings.Join(patches, " "))
	}
	flush()
	for _, l := range r.ArgoCD.Lines {
		if l.Offline != "" {
			fmt.Fprintf(&b, "  %s offline: %s\n", l.Line, l.Offline)
		}
	}
	var seeds []string
	for _, s := range r.ArgoCD.Seeds {
		seeds = append(seeds, s.Version+star(s.Obtainable))
	}
	fmt.Fprintf(&b, "  seed pins: %s\n\n", strings.Join(seeds, " "))

	fmt.Fprintln(&b, "Components")
	fmt.Fprintln(w, "  component\tpins\tnewest\tfound in\tnewest here")
	for _, c := range r.Components {
		var pins []string
		for _, p := range c.Pins {
			pins = append(pins, p.Version+star(p.Obtainable))
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\t%s\n", c.Name, strings.Join(pins, " "), dash(c.Newest.Version), dash(c.Newest.Found), dash(c.NewestObtainable))
	}
	flush()

	fmt.Fprintf(&b, "\nThe nightly's shards: %d\n", len(r.Shards))
	fmt.Fprintln(w, "  tier\tshards\tcells\tcluster time\trunner time\tlongest job")
	for _, t := range r.Tiers {
		fmt.Fprintf(w, "  %s\t%d\t%d\t%s\t%s\t%s\n", t.Name, t.Shards, t.Cells, minutes(t.ClusterMinutes), minutes(t.RunnerMinutes), minutes(t.LongestMinutes))
	}
	flush()
	b.WriteString("  (cell times as make plan estimates them; a job adds ~5 min for its cluster and ArgoCD and ~10 min of its own steps)\n\n")
	fmt.Fprintln(w, "  scenario\tArgoCD\ttier\tcells\tunmeasured\tcomponent versions\tbudget")
	for _, sh := range r.Shards {
		versions := sh.ComponentVersion
		if versions == "" {
			versions = "the variants' own"
		}
		if sh.Variant != "" {
			versions = "VARIANT=" + sh.Variant
		}
		fmt.Fprintf(w, "  %s\t%s%s\t%s\t%d\t%d\t%s\t%d min\n", sh.Scenario, sh.ArgoCD, mark(sh), sh.Tier, sh.CellCount, sh.Unmeasured, versions, sh.E2EMinutes)
	}
	flush()
	b.WriteString("  (s: seed pin; +: supported line)\n")

	if len(r.NotRun) > 0 {
		fmt.Fprintf(&b, "\nNot runnable %s:\n", r.Mode)
		// one line per reason: offline, a line's patches share theirs
		var whys []string
		what := map[string][]string{}
		for _, n := range r.NotRun {
			if _, ok := what[n.Why]; !ok {
				whys = append(whys, n.Why)
			}
			what[n.Why] = append(what[n.Why], n.What)
		}
		for _, why := range whys {
			fmt.Fprintf(&b, "  - %s: %s\n", strings.Join(what[why], ", "), why)
		}
	}
	b.WriteString("\nHow the versions were read:\n")
	for _, l := range r.ArgoCD.Lookups {
		fmt.Fprintf(&b, "  - %s\n", l)
	}
	for _, c := range r.Components {
		for _, l := range c.Lookups {
			fmt.Fprintf(&b, "  - %s\n", l)
		}
	}
	if len(r.Problems) > 0 {
		b.WriteString("\nProblems:\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "  - %s\n", p)
		}
	}
	return b.String()
}

func star(ok bool) string {
	if ok {
		return "*"
	}
	return ""
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func mark(sh Shard) string {
	m := ""
	if sh.Seed {
		m += " s"
	}
	if sh.Supported {
		m += " +"
	}
	return m
}

func minutes(m int) string {
	if m >= 60 {
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	return fmt.Sprintf("%dm", m)
}
