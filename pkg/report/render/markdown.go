package render

import (
	"fmt"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
)

// Markdown renders the report for PR comments and upstream bug reports.
func Markdown(r *report.Report) string {
	var b strings.Builder
	if graded(r) {
		fmt.Fprintf(&b, "# %s\n\nRun %s. ", upgradeTitle(r), r.RunID)
	} else {
		fmt.Fprintf(&b, "# Compatibility report %s\n\n", r.RunID)
	}
	fmt.Fprintf(&b, "Kubernetes %s, %s, %s.\n\n", r.Kubernetes, mode(r), span(r))
	if t := r.ArgoCDSupport.Text(); t != "" {
		fmt.Fprintf(&b, "%s.\n\n", t)
	}
	if r.Command != "" {
		fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	}
	if graded(r) {
		gradedMarkdown(&b, r)
	} else {
		cellTable(&b, r.Cells)
	}
	if n := outside(r); n > 0 {
		fmt.Fprintf(&b, "\n%d cell(s) ran on a Kubernetes version outside their ArgoCD release's tested range (its docs/operator-manual/tested-kubernetes-versions.md): marked, not failed.\n", n)
	}
	if across := r.AcrossKubernetes(); len(across) > 0 {
		b.WriteString("\n## Across Kubernetes versions\n\nThe same cell on each Kubernetes version it ran on; with REPEAT, how many runs ended each way (k/N).\n\n")
		for _, g := range across {
			fmt.Fprintf(&b, "| %s %s, ArgoCD %s, %s |", g.Scenario, g.Variant, g.ArgoCD, strings.TrimSpace(g.Component))
			for _, k := range g.Kubernetes {
				fmt.Fprintf(&b, " Kubernetes %s |", k)
			}
			b.WriteString("\n|---|" + strings.Repeat("---|", len(g.Kubernetes)) + "\n| outcome |")
			for _, c := range g.Cells {
				fmt.Fprintf(&b, " %s |", c.Tally())
			}
			b.WriteString("\n\n")
		}
	}
	if cells := r.Unmeasured(); len(cells) > 0 {
		fmt.Fprintf(&b, "\n## %d cell(s) with %s\n\n", len(cells), report.NoMeasurement)
		b.WriteString("No run on a cluster has recorded what these cells should do (suites/matrix.yaml): their outcome is new, not checked against anything.")
		if r.UnmeasuredFails {
			b.WriteString(" This run was asked to fail on them.")
		}
		b.WriteString("\n\n")
		for _, c := range cells {
			fmt.Fprintf(&b, "- %s: %s\n", c.ID(), c.Outcome)
		}
	}
	for _, c := range r.Cells {
		if len(c.Observations) == 0 && len(c.Runs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", c.ID())
		for i, run := range c.Runs {
			fmt.Fprintf(&b, "- run %d: %s in %.0fs: %s (`%s`)\n", i+1, run.Outcome, run.Duration, mdEscape(run.Reason), run.Evidence)
		}
		if len(c.Runs) > 0 && len(c.Observations) > 0 {
			fmt.Fprintf(&b, "\nRun %d, step by step:\n\n", len(c.Runs))
		}
		for _, o := range c.Observations {
			fmt.Fprintf(&b, "- %s\n", mdEscape(o))
		}
		if c.Evidence != "" {
			fmt.Fprintf(&b, "\nEvidence: `%s`\n", c.Evidence)
		}
	}
	if r.Stopped != "" {
		fmt.Fprintf(&b, "\n## Stopped before its end\n\n%s\n", mdEscape(r.Stopped))
		if len(r.NotRun) > 0 {
			b.WriteString("\nNot run:\n\n")
			for _, c := range r.NotRun {
				fmt.Fprintf(&b, "- %s\n", c.ID())
			}
		}
	}
	if len(r.Sources) > 0 {
		fmt.Fprintf(&b, "\n## Runs merged\n\n")
		for _, src := range r.Sources {
			fmt.Fprintf(&b, "- %s: %s, Kubernetes %s, %d cells, %s", src.RunID, modeOf(src.Offline), src.Kubernetes, src.Cells,
				src.Started.UTC().Format("2006-01-02 15:04Z"))
			if src.Command != "" {
				fmt.Fprintf(&b, ", `%s`", src.Command)
			}
			if src.Dir != "" {
				fmt.Fprintf(&b, " (`%s`)", src.Dir)
			}
			b.WriteString("\n")
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

// cellTable is the table of the cells, in their order.
func cellTable(b *strings.Builder, cells []report.Cell) {
	b.WriteString("| scenario | variant | ArgoCD | Kubernetes | component | outcome | expected | time | reason |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range cells {
		mark := ""
		if c.Unexpected {
			mark = " **(unexpected)**"
		}
		kube := c.Kubernetes
		if c.Outside() {
			kube += " (outside ArgoCD's tested " + c.ArgoCDTested + ")"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s %s | %s%s | %s | %.0fs | %s |\n", c.Scenario, c.Variant, c.ArgoCD, kube,
			c.Component, c.ComponentVersion, c.Outcome, mark, c.ExpectedText(), c.Duration, mdEscape(c.Reason))
	}
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// mode says how the report's runs got their images.
func mode(r *report.Report) string {
	for _, src := range r.Sources {
		if src.Offline != r.Sources[0].Offline {
			return "mixed: offline and online runs"
		}
	}
	if r.RegistryMirror != "" && !r.Offline && len(r.Sources) == 0 {
		return "online (upstream images pulled through the registry mirror " + r.RegistryMirror + ")"
	}
	return modeOf(r.Offline)
}

func modeOf(offline bool) string {
	if offline {
		return "offline (images built from pinned sources)"
	}
	return "online (upstream images)"
}

// span is when the report's runs started and finished.
func span(r *report.Report) string {
	start, end := r.Started.UTC(), r.Finished.UTC()
	if start.Format("20060102") == end.Format("20060102") {
		return start.Format("2006-01-02 15:04:05Z") + " to " + end.Format("15:04:05Z")
	}
	return start.Format("2006-01-02 15:04:05Z") + " to " + end.Format("2006-01-02 15:04:05Z")
}

// outside counts the cells outside their ArgoCD release's tested range.
func outside(r *report.Report) int {
	n := 0
	for _, c := range r.Cells {
		if c.Outside() {
			n++
		}
	}
	return n
}
