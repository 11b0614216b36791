package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
)

func fleet() *report.Report {
	cell := func(app string, o report.Outcome, reason string) report.Cell {
		c := report.Cell{Scenario: "upgrade-check", Variant: app, ArgoCD: "v3.4.7", Component: "applications", Outcome: o, Expected: report.Safe, Reason: reason}
		c.Evidence = "cells/" + c.ID()
		c.Settle()
		return c
	}
	same := "v3.4.7 -> v3.5.1: the same render; the cascade left "
	return &report.Report{RunID: "20261128-140000", Kubernetes: "v1.33.13", Cells: []report.Cell{
		cell("kargo", report.Safe, same+"9 customresourcedefinition.apiextensions.k8s.io (states.md)"),
		cell("knative-serving", report.Broken, "on v3.5.1: OutOfSync after the sync: webhook.serving.knative.dev (already so on v3.4.7; timing); the cascade left 12 customresourcedefinition.apiextensions.k8s.io (states.md)"),
		cell("kruise", report.Safe, same+"17 customresourcedefinition.apiextensions.k8s.io (states.md)"),
		cell("web", report.Changed, "the render of web differs in 3 objects: each gains argocd.argoproj.io/tracking-id"),
		cell("api", report.Changed, "the render of api differs in 5 objects: each gains argocd.argoproj.io/tracking-id"),
		cell("broken-source", report.Error, "application broken-source: source missing"),
	}}
}

// make upgrade-check's report opens on its verdicts' counts, lists its
// cells by verdict (BROKEN, CHANGED, ERROR, SAFE) each linking its
// evidence, and says what several Applications share once, with each one's
// numbers, not on every row.
func TestGradedReportReadsAtAGlance(t *testing.T) {
	r := fleet()
	md := Markdown(r)
	wantAll(t, "report.md", md,
		"# Upgrade check: 6 Application(s)",
		"**Not safe to upgrade as it is: 1 BROKEN",
		"6 Application(s): 1 BROKEN, 2 CHANGED, 1 ERROR, 2 SAFE.",
		"- 3 of 6 (knative-serving N=12, kargo N=9, kruise N=17): the cascade left N customresourcedefinition.apiextensions.k8s.io (states.md)",
		"- 2 of 6 (kargo, kruise): v3.4.7 -> v3.5.1: the same render",
		"- 2 of 6 (web N=3, api N=5): the render of <application> differs in N objects: each gains argocd.argoproj.io/tracking-id",
		"| [kargo](cells/upgrade-check_kargo_v3.4.7/) |",
		"as said above of several (2 part(s))",
		// a clause of its own stays on its row, parentheses and all
		"on v3.5.1: OutOfSync after the sync: webhook.serving.knative.dev (already so on v3.4.7; timing); and 1 part(s) said above of several")
	var order []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| [") {
			order = append(order, strings.SplitN(strings.TrimPrefix(line, "| ["), "]", 2)[0])
		}
	}
	if got := strings.Join(order, " "); got != "knative-serving web api broken-source kargo kruise" {
		t.Errorf("rows %q, want BROKEN, CHANGED, ERROR, SAFE, each verdict's in the report's order", got)
	}
	html := HTML(r)
	wantAll(t, "report.html", html, `6 Application(s): <span class="broken"><b>1</b> BROKEN</span>`, "<h2>Said of several Applications</h2>")
	if strings.Index(html, "Said of several") > strings.Index(html, "<h2>upgrade-check</h2>") {
		t.Error("report.html: the shared reasons after the table, want them first")
	}
	// a scenario report is as it was: no verdicts, its cells in order
	if md := Markdown(sample()); strings.Contains(md, "Application(s)") || !strings.Contains(md, "| scenario | variant |") {
		t.Errorf("a scenario report rendered as an upgrade check's:\n%s", md)
	}
}

// A fleet of 2,000 Applications keeps report.md's head (what comes before
// the table) short: a line said of many names at most ten of them and the
// count, "all 2000" when it is every one, and at most ten such lines
// (issue #76: at 200 each line listed all 200 names).
func TestTheHeadStaysShortAtTwoThousand(t *testing.T) {
	r := &report.Report{RunID: "20261202-000000", Kubernetes: "v1.33.13"}
	for i := range 2000 {
		app := fmt.Sprintf("t%04d", i)
		reason := "v2.14.11 -> v3.6.1: the render: 5 object(s) differ: each gains argocd.argoproj.io/tracking-id"
		for k := range 15 {
			if i%(k+2) == 0 {
				reason += fmt.Sprintf("; clause %c of several", rune('a'+k))
			}
		}
		c := report.Cell{Scenario: "upgrade-check", Variant: app, ArgoCD: "v2.14.11", Component: "applications", Outcome: report.Changed, Expected: report.Safe, Reason: reason}
		c.Settle()
		r.Cells = append(r.Cells, c)
	}
	md := Markdown(r)
	head := md[:strings.Index(md, "| application |")]
	if len(head) > 5000 {
		t.Errorf("report.md's head is %d bytes at 2,000 Applications, want under 5 KB:\n%s", len(head), head)
	}
	wantAll(t, "report.md", head, "- 2000 of 2000 (all 2000; N=5):", "... and 990 more", "- and 6 more said of several, each in its Applications' rows")
	for _, line := range strings.Split(head, "\n") {
		if strings.Count(line, "t0") > namesShown {
			t.Errorf("a line names %d Applications: %s", strings.Count(line, "t0"), line)
		}
	}
	if html := HTML(r); !strings.Contains(html, "and 6 more said of several") {
		t.Error("report.html lists every line said of several")
	}
}

// A graded report titles itself by its upgrade, answers first, and says
// each behaviour change its verdicts name once, with its Applications and
// what to set; the CHANGED no change explains come before those it does.
func TestGradedReportAnswersByCause(t *testing.T) {
	cell := func(app string, o report.Outcome, unexplained bool, explained ...string) report.Cell {
		c := report.Cell{Scenario: "upgrade-check", Variant: app, ArgoCD: "v2.14.11", UpgradedTo: "v3.6.1", Component: "applications",
			Outcome: o, Expected: report.Safe, Reason: app + "'s reason", Explained: explained, Unexplained: unexplained}
		c.Settle()
		return c
	}
	with := func(c report.Cell, clause string) report.Cell { c.Reason += "; " + clause; return c }
	r := &report.Report{RunID: "20261202-150000", Kubernetes: "v1.33.13", Cells: []report.Cell{
		with(cell("explained", report.Changed, false, "tracking-annotation", "health-not-persisted"), "explained: tracking-annotation (v3.0.0)"),
		with(cell("odd", report.Changed, true, "tracking-annotation"), "explained: tracking-annotation (v3.0.0)"),
		cell("same", report.Safe, false),
	}}
	md := Markdown(r)
	wantAll(t, "report.md", md, "# Upgrade check v2.14.11 -> v3.6.1: 3 Application(s)",
		"**Nothing broke; 1 CHANGED by a difference no known behaviour change explains (read those rows).**",
		"- **tracking-annotation** (v3.0.0, behaviour): resources tracked by annotation, not label. 2 of 3 (odd, explained). To keep the old behaviour: argocd-cm application.resourceTrackingMethod: label",
		"- **health-not-persisted** (v3.0.0, behaviour)")
	if strings.Contains(md, "(odd, explained): explained:") {
		t.Errorf("a cause said twice, by cause and among the clauses said of several:\n%s", md)
	}
	if strings.Index(md, "| odd |") > strings.Index(md, "| explained |") {
		t.Errorf("the unexplained CHANGED after the explained one:\n%s", md)
	}
	r.Cells = r.Cells[:1]
	if md := Markdown(r); !strings.Contains(md, "**Nothing broke; the 1 CHANGED are ArgoCD's behaviour changes its upgrade guides describe") {
		t.Errorf("every difference explained, the answer:\n%s", md)
	}
}
