package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Markdown renders the report for PR comments and upstream bug reports.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Compatibility report %s\n\n", r.RunID)
	fmt.Fprintf(&b, "Kubernetes %s, %s, %s.\n\n", r.Kubernetes, r.mode(), r.span())
	if t := r.ArgoCDSupport.Text(); t != "" {
		fmt.Fprintf(&b, "%s.\n\n", t)
	}
	if r.Command != "" {
		fmt.Fprintf(&b, "Command: `%s`\n\n", r.Command)
	}
	b.WriteString("| scenario | variant | ArgoCD | Kubernetes | component | outcome | expected | time | reason |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.Cells {
		mark := ""
		if c.Unexpected {
			mark = " **(unexpected)**"
		}
		kube := c.Kubernetes
		if c.Outside() {
			kube += " (outside ArgoCD's tested " + c.ArgoCDTested + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s %s | %s%s | %s | %.0fs | %s |\n", c.Scenario, c.Variant, c.ArgoCD, kube,
			c.Component, c.ComponentVersion, c.Outcome, mark, c.ExpectedText(), c.Duration, mdEscape(c.Reason))
	}
	if n := r.outside(); n > 0 {
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
		fmt.Fprintf(&b, "\n## %d cell(s) with %s\n\n", len(cells), NoMeasurement)
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

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// mode says how the report's runs got their images.
func (r *Report) mode() string {
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
func (r *Report) span() string {
	start, end := r.Started.UTC(), r.Finished.UTC()
	if start.Format("20060102") == end.Format("20060102") {
		return start.Format("2006-01-02 15:04:05Z") + " to " + end.Format("15:04:05Z")
	}
	return start.Format("2006-01-02 15:04:05Z") + " to " + end.Format("2006-01-02 15:04:05Z")
}

// KubeGroup is one cell (scenario, variant, ArgoCD release, component
// version) on each Kubernetes version it ran on.
type KubeGroup struct {
	Scenario, Variant, ArgoCD, Component string
	Kubernetes                           []string // oldest first
	Cells                                []*Cell  // one per Kubernetes version
}

// AcrossKubernetes groups the cells that ran on more than one Kubernetes
// version, in the report's order.
func (r *Report) AcrossKubernetes() []KubeGroup {
	var groups []KubeGroup
	index := map[string]int{}
	for i := range r.Cells {
		c := &r.Cells[i]
		key := strings.Join([]string{c.Scenario, c.Variant, c.ArgoCD, c.ComponentVersion}, "|")
		j, ok := index[key]
		if !ok {
			j = len(groups)
			index[key] = j
			groups = append(groups, KubeGroup{Scenario: c.Scenario, Variant: c.Variant, ArgoCD: c.ArgoCD, Component: c.Component + " " + c.ComponentVersion})
		}
		groups[j].Cells = append(groups[j].Cells, c)
	}
	var out []KubeGroup
	for _, g := range groups {
		if len(g.Cells) < 2 {
			continue
		}
		slices.SortFunc(g.Cells, func(a, b *Cell) int { return catalog.CompareTags(a.Kubernetes, b.Kubernetes) })
		for _, c := range g.Cells {
			g.Kubernetes = append(g.Kubernetes, c.Kubernetes)
		}
		out = append(out, g)
	}
	return out
}

// table is one scenario's matrix: a row per variant and component version, a
// column per ArgoCD release the scenario ran on (each scenario has its own
// axis, so one table for all would be mostly empty columns).
type table struct {
	Scenario, Upstream string
	Versions           []string
	Rows               []*row
}

type row struct {
	Variant, Component string
	Kubernetes         string  // set when the scenario ran on several versions
	Cells              []*Cell // one per Versions entry, nil where the cell did not run
}

// tables groups the cells by scenario, in the order they appear.
func (r *Report) tables() []*table {
	var tables []*table
	byScenario := map[string]*table{}
	for i := range r.Cells {
		c := &r.Cells[i]
		t, ok := byScenario[c.Scenario]
		if !ok {
			t = &table{Scenario: c.Scenario}
			byScenario[c.Scenario] = t
			tables = append(tables, t)
		}
		if t.Upstream == "" {
			t.Upstream = c.Upstream
		}
		if !slices.Contains(t.Versions, c.ArgoCD) {
			t.Versions = append(t.Versions, c.ArgoCD)
		}
	}
	for _, t := range tables {
		slices.SortFunc(t.Versions, catalog.CompareTags)
		kubes := map[string]bool{}
		for i := range r.Cells {
			if r.Cells[i].Scenario == t.Scenario {
				kubes[r.Cells[i].Kubernetes] = true
			}
		}
		index := map[string]*row{}
		for i := range r.Cells {
			c := &r.Cells[i]
			if c.Scenario != t.Scenario {
				continue
			}
			key := c.Variant + "/" + c.ComponentVersion + "/" + c.Kubernetes
			rw, ok := index[key]
			if !ok {
				rw = &row{Variant: c.Variant, Component: strings.TrimSpace(c.Component + " " + c.ComponentVersion), Cells: make([]*Cell, len(t.Versions))}
				if len(kubes) > 1 {
					rw.Kubernetes = c.Kubernetes
				}
				index[key] = rw
				t.Rows = append(t.Rows, rw)
			}
			rw.Cells[slices.Index(t.Versions, c.ArgoCD)] = c
		}
	}
	return tables
}

// outside counts the cells outside their ArgoCD release's tested range.
func (r *Report) outside() int {
	n := 0
	for _, c := range r.Cells {
		if c.Outside() {
			n++
		}
	}
	return n
}

// HTML renders the matrix at a glance: the cells that need a look first, then
// a table per scenario, rows variant x component version, columns the
// scenario's ArgoCD releases.
func (r *Report) HTML() string {
	var buf bytes.Buffer
	var look []*Cell
	for i := range r.Cells {
		if r.Cells[i].NeedsLook() {
			look = append(look, &r.Cells[i])
		}
	}
	page := template.Must(htmlPage.Clone()).Funcs(template.FuncMap{"support": func(tag string) string {
		if r.ArgoCDSupport == nil {
			return ""
		}
		return r.ArgoCDSupport.Releases[tag]
	}})
	err := page.Execute(&buf, map[string]any{"R": r, "Mode": r.mode(), "Span": r.span(), "Look": look, "Unmeasured": r.Unmeasured(), "Tables": r.tables(), "Across": r.AcrossKubernetes()})
	if err != nil {
		return "<pre>" + template.HTMLEscapeString(err.Error()) + "</pre>"
	}
	return buf.String()
}

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"lower": func(o Outcome) string { return strings.ToLower(string(o)) },
	"mode":  modeOf,
	"inc":   func(i int) int { return i + 1 },
	// support is a release's support in this report (HTML sets it per report)
	"support": func(string) string { return "" },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GitOps compatibility matrix {{.R.RunID}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#1b1f24}
h2{font-size:18px;margin:1.6em 0 .2em}
h2 a{font-size:13px;font-weight:400;margin-left:.6em}
table{border-collapse:collapse;margin-top:.5em}
th,td{border:1px solid #ccd;padding:.45em .7em;vertical-align:top;font-size:14px}
th{background:#f0f2f5;text-align:left;white-space:nowrap}
td.cell{min-width:9em;max-width:18em;overflow-wrap:anywhere}
.o{font-weight:700}
.reason{display:-webkit-box;-webkit-line-clamp:3;-webkit-box-orient:vertical;overflow:hidden}
.reproduced{background:#fde2e1}.not_reproduced{background:#e3f1ff}
.mitigated{background:#dcf5e3}.not_mitigated{background:#ffe9c7}
.skipped{background:#eeeeee;color:#555}.error{background:#f7c6f0}.flaky{background:#fff3a8}
.unexpected{outline:3px solid #d00;outline-offset:-3px}
.unmeasured{outline:3px dashed #777;outline-offset:-3px}
.meta{color:#555;font-size:13px}
.nowrap{white-space:nowrap}
.legend span{display:inline-block;padding:.2em .6em;margin-right:.4em;border:1px solid #ccd}
.look li{margin:.3em 0}.look li>span:first-child{font-weight:700;padding:0 .4em}
</style></head><body>
<h1>GitOps compatibility matrix</h1>
<p class="meta">Run {{.R.RunID}} · Kubernetes {{.R.Kubernetes}} · {{.Mode}} · {{.Span}}{{if .R.Sources}} · runs merged: {{len .R.Sources}}{{end}}</p>
{{with .R.ArgoCDSupport.Text}}<p class="meta">{{.}}</p>{{end}}
<p class="legend"><span class="reproduced">REPRODUCED</span><span class="not_reproduced">NOT_REPRODUCED</span><span class="mitigated">MITIGATED</span><span class="not_mitigated">NOT_MITIGATED</span><span class="skipped">SKIPPED</span><span class="error">ERROR</span><span class="flaky">FLAKY</span> red outline: differs from the expectation; dashed outline: no measured expectation; expected RACE: measured going both ways, either verdict or FLAKY is as expected</p>
{{if .Look}}<h2>Needs a look</h2><ul class="look">{{range .Look}}<li><span class="{{lower .Outcome}}">{{.Outcome}}</span> {{.Scenario}} {{.Variant}} · {{.Component}} {{.ComponentVersion}} · ArgoCD {{.ArgoCD}}{{if .Expected}} · expected {{.Expected}}{{end}}: <span class="meta">{{.Reason}}</span></li>{{end}}</ul>{{end}}
{{if .Unmeasured}}<h2>No measured expectation</h2><p class="meta">No run on a cluster has recorded what these cells should do: their outcome is new, not checked against anything{{if .R.UnmeasuredFails}} (this run was asked to fail on them){{end}}.</p><ul class="look">{{range .Unmeasured}}<li><span class="{{lower .Outcome}}">{{.Outcome}}</span> {{.Scenario}} {{.Variant}} · {{.Component}} {{.ComponentVersion}} · ArgoCD {{.ArgoCD}}</li>{{end}}</ul>{{end}}
{{range .Tables}}<h2>{{.Scenario}}{{if .Upstream}}<a href="{{.Upstream}}">upstream</a>{{end}}</h2>
<table><tr><th>variant / component</th>{{range .Versions}}<th>ArgoCD {{.}}{{with support .}}<div class="meta">{{.}}</div>{{end}}</th>{{end}}</tr>
{{range .Rows}}<tr><td class="nowrap">{{.Variant}}<div class="meta">{{.Component}}</div>{{with .Kubernetes}}<div class="meta">Kubernetes {{.}}</div>{{end}}</td>{{range .Cells}}{{if .}}<td class="cell {{lower .Outcome}}{{if .Unexpected}} unexpected{{end}}{{if .Unmeasured}} unmeasured{{end}}" title="{{.Reason}}"><div class="o">{{.Outcome}}</div><div class="meta">{{if .Unmeasured}}no measured expectation{{else}}expected {{.Expected}}{{end}} · {{printf "%.0f" .Duration}}s</div>{{if .Outside}}<div class="meta">Kubernetes {{.Kubernetes}} outside ArgoCD {{.ArgoCD}}'s tested {{.ArgoCDTested}}</div>{{end}}<div class="meta reason">{{.Reason}}</div>{{if .Runs}}<div class="meta">runs:{{range $i, $run := .Runs}} {{if $run.Evidence}}<a href="{{$run.Evidence}}/" title="{{$run.Outcome}}: {{$run.Reason}}">{{inc $i}}</a>{{else}}<span title="{{$run.Outcome}}: {{$run.Reason}}">{{inc $i}}</span>{{end}}{{end}}</div>{{else if .Evidence}}<div class="meta"><a href="{{.Evidence}}/">evidence</a></div>{{end}}</td>{{else}}<td></td>{{end}}{{end}}</tr>
{{end}}</table>
{{end}}
{{if .Across}}<h2>Across Kubernetes versions</h2><p class="meta">The same cell on each Kubernetes version it ran on; with REPEAT, how many runs ended each way (k/N).</p>
<table><tr><th>cell</th><th>Kubernetes: outcome</th></tr>
{{range .Across}}<tr><td class="nowrap">{{.Scenario}} {{.Variant}}<div class="meta">ArgoCD {{.ArgoCD}} · {{.Component}}</div></td><td>{{range .Cells}}<div class="{{lower .Outcome}}" style="padding:.2em .4em;margin:.1em 0"><b>{{.Kubernetes}}</b>: {{.Tally}}</div>{{end}}</td></tr>
{{end}}</table>{{end}}
{{if .R.Sources}}<h2>Runs merged</h2>
<table><tr><th>run</th><th>started</th><th>mode</th><th>Kubernetes</th><th>cells</th><th>command</th></tr>
{{range .R.Sources}}<tr><td class="nowrap">{{if .Dir}}<a href="{{.Dir}}/report.html">{{.RunID}}</a>{{else}}{{.RunID}}{{end}}</td><td class="nowrap">{{.Started.UTC.Format "2006-01-02 15:04Z"}}</td><td>{{mode .Offline}}</td><td>{{.Kubernetes}}</td><td>{{.Cells}}</td><td><code>{{.Command}}</code></td></tr>
{{end}}</table>{{end}}
{{if .R.Notes}}<h2>Notes</h2><ul>{{range .R.Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
</body></html>
`))

// JUnit renders one test case per cell; the cells that fail the run (Fails) fail.
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
		SystemOut string   `xml:"system-out,omitempty"`
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
		tc := testcase{Name: strings.TrimSpace(c.Variant + " argocd " + c.ArgoCD + " " + c.Component + " " + c.ComponentVersion + " kubernetes " + c.Kubernetes),
			Classname: c.Scenario, Time: fmt.Sprintf("%.1f", c.Duration)}
		switch {
		case r.Fails(&c):
			tc.Failure = &failure{Message: fmt.Sprintf("%s, expected %s", c.Outcome, c.ExpectedText()), Text: c.Reason}
			s.Failures++
		case c.Outcome == Skipped:
			tc.Skipped = &skipped{Message: c.Reason}
			s.Skipped++
		}
		if c.Unmeasured {
			tc.SystemOut = fmt.Sprintf("%s: %s (%s)", NoMeasurement, c.Outcome, c.Reason)
		}
		s.Cases = append(s.Cases, tc)
	}
	out, _ := xml.MarshalIndent(s, "", "  ")
	return append([]byte(xml.Header), append(out, '\n')...)
}
