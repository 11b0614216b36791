package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html/template"
	"slices"
	"strings"
)

// Markdown renders the report for PR comments and upstream bug reports.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Compatibility report %s\n\n", r.RunID)
	mode := "online (upstream images)"
	if r.Offline {
		mode = "offline (images built from pinned sources)"
	}
	fmt.Fprintf(&b, "Kubernetes %s, %s, %s to %s.\n\n", r.Kubernetes, mode,
		r.Started.UTC().Format("2006-01-02 15:04:05Z"), r.Finished.UTC().Format("15:04:05Z"))
	if r.Command != "" {
		fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	}
	b.WriteString("| scenario | variant | ArgoCD | component | outcome | expected | time | reason |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Cells {
		mark := ""
		if c.Unexpected {
			mark = " **(unexpected)**"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s %s | %s%s | %s | %.0fs | %s |\n", c.Scenario, c.Variant, c.ArgoCD,
			c.Component, c.ComponentVersion, c.Outcome, mark, c.Expected, c.Duration, mdEscape(c.Reason))
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
	if len(r.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// HTML renders the matrix at a glance: rows scenario x variant, columns ArgoCD versions.
func (r *Report) HTML() string {
	type row struct {
		Scenario, Variant string
		Cells             []*Cell
	}
	var versions []string
	var rows []*row
	index := map[string]*row{}
	for i := range r.Cells {
		c := &r.Cells[i]
		if !slices.Contains(versions, c.ArgoCD) {
			versions = append(versions, c.ArgoCD)
		}
	}
	slices.Sort(versions)
	for i := range r.Cells {
		c := &r.Cells[i]
		key := c.Scenario + "/" + c.Variant + "/" + c.ComponentVersion
		rw, ok := index[key]
		if !ok {
			rw = &row{Scenario: c.Scenario, Variant: c.Variant + " " + c.Component + " " + c.ComponentVersion, Cells: make([]*Cell, len(versions))}
			index[key] = rw
			rows = append(rows, rw)
		}
		rw.Cells[slices.Index(versions, c.ArgoCD)] = c
	}
	var buf bytes.Buffer
	err := htmlPage.Execute(&buf, map[string]any{"R": r, "Versions": versions, "Rows": rows})
	if err != nil {
		return "<pre>" + template.HTMLEscapeString(err.Error()) + "</pre>"
	}
	return buf.String()
}

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"lower": func(o Outcome) string { return strings.ToLower(string(o)) },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GitOps compatibility matrix {{.R.RunID}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#1b1f24}
table{border-collapse:collapse;margin-top:1em}
th,td{border:1px solid #ccd;padding:.45em .7em;vertical-align:top;font-size:14px}
th{background:#f0f2f5;text-align:left}
td.cell{min-width:11em}
.o{font-weight:700}
.reproduced{background:#fde2e1}.not_reproduced{background:#e3f1ff}
.mitigated{background:#dcf5e3}.not_mitigated{background:#ffe9c7}
.skipped{background:#eeeeee;color:#555}.error{background:#f7c6f0}.flaky{background:#fff3a8}
.unexpected{outline:3px solid #d00;outline-offset:-3px}
.meta{color:#555;font-size:13px}
.legend span{display:inline-block;padding:.2em .6em;margin-right:.4em;border:1px solid #ccd}
</style></head><body>
<h1>GitOps compatibility matrix</h1>
<p class="meta">Run {{.R.RunID}} · Kubernetes {{.R.Kubernetes}} · {{if .R.Offline}}offline: images built from pinned sources{{else}}online: upstream images{{end}} · {{.R.Started.UTC.Format "2006-01-02 15:04Z"}}</p>
<p class="legend"><span class="reproduced">REPRODUCED</span><span class="not_reproduced">NOT_REPRODUCED</span><span class="mitigated">MITIGATED</span><span class="not_mitigated">NOT_MITIGATED</span><span class="skipped">SKIPPED</span><span class="error">ERROR</span><span class="flaky">FLAKY</span> red outline: differs from the expectation</p>
<table><tr><th>scenario</th><th>variant / component</th>{{range .Versions}}<th>ArgoCD {{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><td>{{.Scenario}}</td><td>{{.Variant}}</td>{{range .Cells}}{{if .}}<td class="cell {{lower .Outcome}}{{if .Unexpected}} unexpected{{end}}" title="{{.Reason}}"><div class="o">{{.Outcome}}</div><div class="meta">expected {{.Expected}} · {{printf "%.0f" .Duration}}s</div><div class="meta">{{.Reason}}</div>{{if .Evidence}}<div class="meta"><a href="{{.Evidence}}/">evidence</a>{{if .Upstream}} · <a href="{{.Upstream}}">upstream</a>{{end}}</div>{{end}}</td>{{else}}<td></td>{{end}}{{end}}</tr>
{{end}}</table>
{{if .R.Notes}}<h2>Notes</h2><ul>{{range .R.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body></html>
`))

// JUnit renders one test case per cell; unexpected, ERROR and FLAKY cells fail.
func (r *Report) JUnit() []byte {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := suite{Name: "gitops-conformance " + r.RunID, Tests: len(r.Cells)}
	for _, c := range r.Cells {
		tc := testcase{Name: c.Variant + " argocd " + c.ArgoCD + " " + c.Component + " " + c.ComponentVersion,
			Classname: c.Scenario, Time: fmt.Sprintf("%.1f", c.Duration)}
		switch {
		case c.Unexpected || c.Outcome == Error || c.Outcome == Flaky:
			tc.Failure = &failure{Message: fmt.Sprintf("%s, expected %s", c.Outcome, c.Expected), Text: c.Reason}
			s.Failures++
		case c.Outcome == Skipped:
			tc.Skipped = &skipped{Message: c.Reason}
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
	}
	out, _ := xml.MarshalIndent(s, "", "  ")
	return append([]byte(xml.Header), append(out, '\n')...)
}
