package render

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
)

// HTML renders the matrix at a glance: the cells that need a look first, then
// a table per scenario, rows variant x component version, columns the
// scenario's ArgoCD releases.
func HTML(r *report.Report) string {
	var buf bytes.Buffer
	var look []*report.Cell
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
	data := map[string]any{"R": r, "Mode": mode(r), "Span": span(r), "Look": look, "Unmeasured": r.Unmeasured(), "Across": r.AcrossKubernetes(), "Graded": graded(r)}
	if graded(r) {
		// make upgrade-check's: its verdicts' counts first, its cells by verdict
		sorted := *r
		sorted.Cells = byVerdict(r.Cells)
		common, _ := sharedClauses(sorted.Cells)
		common = notCauses(common)
		if more := len(common) - clausesShown; more > 0 {
			common, data["SharedMore"] = common[:clausesShown], more
		}
		data["Tables"], data["Counts"], data["Shared"], data["Apps"] = tables(&sorted), verdictCounts(sorted.Cells), common, len(sorted.Cells)
		// the answer first, then each cause; the rows are sorted by what to
		// read first, so no list of them repeats their reasons above
		data["Title"], data["Answer"], data["Causes"], data["Look"] = upgradeTitle(r), answer(sorted.Cells), causes(sorted.Cells), nil
	} else {
		data["Tables"] = tables(r)
	}
	err := page.Execute(&buf, data)
	if err != nil {
		return "<pre>" + template.HTMLEscapeString(err.Error()) + "</pre>"
	}
	return buf.String()
}

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"lower": func(o report.Outcome) string { return strings.ToLower(string(o)) },
	"mode":  modeOf,
	"inc":   func(i int) int { return i + 1 },
	// support is a release's support in this report (HTML sets it per report)
	"support": func(string) string { return "" },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{or .Title "GitOps compatibility matrix"}} {{.R.RunID}}</title>
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
.safe{background:#dcf5e3}.changed{background:#ffe9c7}.broken{background:#fde2e1}
.skipped{background:#eeeeee;color:#555}.error{background:#f7c6f0}.flaky{background:#fff3a8}
.unexpected{outline:3px solid #d00;outline-offset:-3px}
.unmeasured{outline:3px dashed #777;outline-offset:-3px}
.meta{color:#555;font-size:13px}
.nowrap{white-space:nowrap}
.legend span{display:inline-block;padding:.2em .6em;margin-right:.4em;border:1px solid #ccd}
.look li{margin:.3em 0}.look li>span:first-child{font-weight:700;padding:0 .4em}
</style></head><body>
<h1>{{or .Title "GitOps compatibility matrix"}}</h1>
<p class="meta">Run {{.R.RunID}} · Kubernetes {{.R.Kubernetes}} · {{.Mode}} · {{.Span}}{{if .R.Sources}} · runs merged: {{len .R.Sources}}{{end}}</p>
{{with .R.ArgoCDSupport.Text}}<p class="meta">{{.}}</p>{{end}}
{{with .Answer}}<p style="font-size:20px"><b>{{.}}</b></p>{{end}}
{{if .Counts}}<p class="legend" style="font-size:18px">{{.Apps}} Application(s): {{range .Counts}}<span class="{{lower .Outcome}}"><b>{{.N}}</b> {{.Outcome}}</span>{{end}}</p>{{end}}
{{if .Causes}}<h2>What ArgoCD's upgrade changed, by cause</h2><ul class="look">{{range .Causes}}<li><b>{{.ID}}</b> ({{.Since}}, {{.Impact}}): {{.Title}}. {{len .Apps}} of {{.Total}} ({{.Names}}). <span class="meta">{{.Do}}</span></li>{{end}}</ul>{{end}}
{{if .Shared}}<h2>Said of several Applications</h2><p class="meta">Once here, not on each one; numbers that differ between them as N.</p><ul class="look">{{range .Shared}}<li>{{len .Cells}} ({{.Names}}): <span class="meta">{{.Clause}}</span></li>{{end}}{{with .SharedMore}}<li>and {{.}} more said of several, each in its Applications' rows</li>{{end}}</ul>{{end}}
{{if not .Graded}}<p class="legend"><span class="reproduced">REPRODUCED</span><span class="not_reproduced">NOT_REPRODUCED</span><span class="mitigated">MITIGATED</span><span class="not_mitigated">NOT_MITIGATED</span><span class="skipped">SKIPPED</span><span class="error">ERROR</span><span class="flaky">FLAKY</span> red outline: differs from the expectation; dashed outline: no measured expectation; expected RACE: measured going both ways, either verdict or FLAKY is as expected</p>{{else}}<p class="legend">red outline: differs from the expectation (EXPECT)</p>{{end}}
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

// graded reports whether a cell of r has a verdict of make upgrade-check
// (the legend names them then).
func graded(r *report.Report) bool {
	for _, c := range r.Cells {
		switch c.Outcome {
		case report.Safe, report.Changed, report.Broken:
			return true
		}
	}
	return false
}
