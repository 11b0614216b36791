package nightly

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
)

// Night is one night of the published history (a site's nights/<id>/): its
// merged report, what changed since the night before (none the first
// night), and the workflow run it came from (whose artifact holds the
// evidence).
type Night struct {
	ID     string
	Report *report.Report
	Diff   *Diff
	RunURL string
	// Supported are the ArgoCD minor lines supported that night (its
	// releases.json, else its diff's).
	Supported []string
}

// NightInfo is a night's night.json: what the report does not say.
type NightInfo struct {
	RunURL string `json:"run_url,omitempty"`
}

// LoadNights reads the nights under site/nights/ (site.go), oldest first (by their
// directory names, which start with the date): each directory's
// report.json, and its diff.json, releases.json and night.json when present.
func LoadNights(site string) ([]Night, error) {
	dirs, err := filepath.Glob(filepath.Join(site, nightsDir, "*", "report.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(dirs)
	var nights []Night
	for _, p := range dirs {
		dir := filepath.Dir(p)
		r, err := report.LoadDir(dir)
		if err != nil {
			return nil, err
		}
		n := Night{ID: filepath.Base(dir), Report: r}
		if d, err := LoadDiff(filepath.Join(dir, DiffJSON)); err == nil {
			n.Diff = d
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if n.Diff != nil {
			n.Supported = n.Diff.Supported
		}
		if data, err := os.ReadFile(filepath.Join(dir, releasesFile)); err == nil {
			var rel struct {
				ArgoCD struct{ Supported []string } `json:"argocd"`
			}
			if err := json.Unmarshal(data, &rel); err != nil {
				return nil, fmt.Errorf("load %q: %w", filepath.Join(dir, releasesFile), err)
			}
			n.Supported = rel.ArgoCD.Supported
		}
		if data, err := os.ReadFile(filepath.Join(dir, nightFile)); err == nil {
			var info NightInfo
			if err := json.Unmarshal(data, &info); err != nil {
				return nil, fmt.Errorf("load %q: %w", filepath.Join(dir, nightFile), err)
			}
			n.RunURL = info.RunURL
		}
		nights = append(nights, n)
	}
	return nights, nil
}

// Page is the night's report as published: its cells' evidence lives in
// the run's artifact, not on the site, so the links go and a note names
// the run.
func (n Night) Page() *report.Report {
	r := *n.Report
	r.Cells = slices.Clone(r.Cells)
	for i := range r.Cells {
		r.Cells[i].Evidence = ""
		r.Cells[i].Runs = slices.Clone(r.Cells[i].Runs)
		for j := range r.Cells[i].Runs {
			r.Cells[i].Runs[j].Evidence = ""
		}
	}
	r.Sources = slices.Clone(r.Sources)
	for i := range r.Sources {
		r.Sources[i].Dir = ""
	}
	where := "the workflow run's artifact conformance-report"
	if n.RunURL != "" {
		where += " (" + n.RunURL + ")"
	}
	r.Notes = append(slices.Clone(r.Notes), "Night "+n.ID+": each cell's evidence (steps, logs, objects, reproduction bundle) is in "+where+", kept 30 days; this page holds the report only.")
	return &r
}

// History renders the index page of the nights (oldest first): the nights,
// newest first, with what changed in each; then per scenario a grid of
// ArgoCD release (x Kubernetes version, where the scenario ran on several)
// by variant and component version, each cell its newest outcome and a
// mark per night of the last marks nights.
func History(nights []Night, marks int) string {
	if len(nights) == 0 {
		return "<!doctype html><title>GitOps compatibility matrix</title><p>No night yet.</p>"
	}
	window := nights[max(0, len(nights)-max(marks, 1)):]
	newest := nights[len(nights)-1]
	supported := newest.Supported
	var rows []nightRow
	for i := len(nights) - 1; i >= 0; i-- {
		rows = append(rows, nightRowOf(nights[i]))
	}
	var buf bytes.Buffer
	err := historyPage.Execute(&buf, map[string]any{
		"Newest": newest, "Nights": rows, "Window": len(window), "Supported": strings.Join(supported, ", "),
		"Grids": grids(window, supported),
	})
	if err != nil {
		return "<pre>" + template.HTMLEscapeString(err.Error()) + "</pre>"
	}
	return buf.String()
}

// nightRow is a night in the index's list.
type nightRow struct {
	ID, Started, RunURL                     string
	Cells, Look, Unmeasured, Flips, Failing int
	NewReleases                             []string
	FirstNight                              bool
}

func nightRowOf(n Night) nightRow {
	r := n.Report
	row := nightRow{ID: n.ID, Started: r.Started.UTC().Format("2006-01-02 15:04Z"), RunURL: n.RunURL, Cells: len(r.Cells),
		Unmeasured: len(r.Unmeasured()), FirstNight: n.Diff == nil}
	for i := range r.Cells {
		if r.Cells[i].NeedsLook() {
			row.Look++
		}
	}
	if n.Diff != nil {
		row.Flips, row.Failing = len(n.Diff.Flips), len(n.Diff.Failing())
		for _, nr := range n.Diff.NewReleases {
			row.NewReleases = append(row.NewReleases, nr.Kind+" "+nr.Version)
		}
	}
	return row
}

// grid is one scenario's history.
type grid struct {
	Scenario, Upstream string
	Lines              []lineSpan
	Cols               []gridCol
	Kube               bool // the scenario ran on several Kubernetes versions
	Rows               []*gridRow
}

type lineSpan struct {
	Line      string
	Span      int
	Supported bool
}

type gridCol struct {
	ArgoCD, Kubernetes string
	Supported          bool
}

type gridRow struct {
	Variant, Version string
	Component        string // the component and its version, as shown
	Cells            []*gridCell
}

// gridCell is one cell's history: its newest result and a mark per night.
type gridCell struct {
	Latest *report.Cell
	Night  string // the night of Latest
	Stale  bool   // the newest night did not run the cell
	Marks  []mark
}

type mark struct {
	Class, Title string
}

// abbrev is an outcome in a grid cell.
var abbrev = map[report.Outcome]string{report.Reproduced: "R", report.NotReproduced: "NR", report.Mitigated: "M", report.NotMitigated: "NM",
	report.Safe: "OK", report.Changed: "C", report.Broken: "B", report.Skipped: "S", report.Error: "E", report.Flaky: "F"}

func grids(window []Night, supported []string) []*grid {
	var out []*grid
	byName := map[string]*grid{}
	type pos struct{ col, row string }
	at := map[string]map[pos][]*report.Cell{} // scenario: column and row: a cell per night (nil: not run)
	colOf := func(c report.Cell) string { return c.ArgoCD + "|" + c.Kubernetes }
	rowOf := func(c report.Cell) string { return c.Variant + "|" + c.ComponentVersion }
	// rows and scenarios in the order of the newest night, then older ones
	for i := len(window) - 1; i >= 0; i-- {
		r := window[i].Report
		for j := range r.Cells {
			c := &r.Cells[j]
			g, ok := byName[c.Scenario]
			if !ok {
				g = &grid{Scenario: c.Scenario}
				byName[c.Scenario] = g
				out = append(out, g)
				at[c.Scenario] = map[pos][]*report.Cell{}
			}
			if g.Upstream == "" {
				g.Upstream = c.Upstream
			}
			if !slices.ContainsFunc(g.Cols, func(x gridCol) bool { return x.ArgoCD+"|"+x.Kubernetes == colOf(*c) }) {
				g.Cols = append(g.Cols, gridCol{ArgoCD: c.ArgoCD, Kubernetes: c.Kubernetes, Supported: onLine(c.ArgoCD, supported) && len(supported) > 0})
			}
			if !slices.ContainsFunc(g.Rows, func(x *gridRow) bool { return x.Variant+"|"+x.Version == rowOf(*c) }) {
				g.Rows = append(g.Rows, &gridRow{Variant: c.Variant, Version: c.ComponentVersion,
					Component: strings.TrimSpace(c.Component + " " + c.ComponentVersion)})
			}
			p := pos{colOf(*c), rowOf(*c)}
			if at[c.Scenario][p] == nil {
				at[c.Scenario][p] = make([]*report.Cell, len(window))
			}
			at[c.Scenario][p][i] = c
		}
	}
	for _, g := range out {
		slices.SortFunc(g.Cols, func(a, b gridCol) int {
			return cmp.Or(catalog.CompareTags(a.ArgoCD, b.ArgoCD), catalog.CompareTags(a.Kubernetes, b.Kubernetes))
		})
		kubes := map[string]bool{}
		for _, col := range g.Cols {
			kubes[col.Kubernetes] = true
			n := catalog.TagNumbers(col.ArgoCD)
			line := fmt.Sprintf("%d.%d", n[0], n[1])
			if k := len(g.Lines); k > 0 && g.Lines[k-1].Line == line {
				g.Lines[k-1].Span++
			} else {
				g.Lines = append(g.Lines, lineSpan{Line: line, Span: 1, Supported: col.Supported})
			}
		}
		g.Kube = len(kubes) > 1
		for _, row := range g.Rows {
			key := row.Variant + "|" + row.Version
			if row.Version == "" {
				row.Component = ""
			}
			for _, col := range g.Cols {
				results := at[g.Scenario][pos{col.ArgoCD + "|" + col.Kubernetes, key}]
				if results == nil {
					row.Cells = append(row.Cells, nil)
					continue
				}
				gc := &gridCell{}
				for i, c := range results {
					if c == nil {
						gc.Marks = append(gc.Marks, mark{Class: "none", Title: window[i].ID + ": not run"})
						continue
					}
					gc.Latest, gc.Night = c, window[i].ID
					title := window[i].ID + ": " + string(c.Outcome)
					if c.Unexpected {
						title += " (expected " + string(c.Expected) + ")"
					}
					gc.Marks = append(gc.Marks, mark{Class: strings.ToLower(string(c.Outcome)), Title: title})
				}
				gc.Stale = results[len(results)-1] == nil
				row.Cells = append(row.Cells, gc)
			}
		}
	}
	return out
}

var historyPage = template.Must(template.New("history").Funcs(template.FuncMap{
	"lower":  func(o report.Outcome) string { return strings.ToLower(string(o)) },
	"abbrev": func(o report.Outcome) string { return abbrev[o] },
	"join":   strings.Join,
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GitOps compatibility matrix: nightly</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#1b1f24}
h2{font-size:18px;margin:1.6em 0 .2em}
h2 a{font-size:13px;font-weight:400;margin-left:.6em}
table{border-collapse:collapse;margin-top:.5em}
th,td{border:1px solid #ccd;padding:.3em .45em;vertical-align:top;font-size:13px}
th{background:#f0f2f5;text-align:left;white-space:nowrap;font-weight:600}
th.line{text-align:center}
th.supported{background:#dff3e4}
td.cell{min-width:4.6em;text-align:center}
.o{font-weight:700;font-size:14px}
.marks{display:flex;gap:1px;justify-content:center;margin-top:.25em}
.marks span{display:inline-block;width:5px;height:11px;border-radius:1px}
.marks span.none{background:#fff;box-shadow:inset 0 0 0 1px #ccd}
.reproduced{background:#f4a6a2}.not_reproduced{background:#9fcaf4}
.mitigated{background:#8fd6a4}.not_mitigated{background:#f6c36b}
.skipped{background:#c9c9c9;color:#444}.error{background:#e07fd3}.flaky{background:#f0dc4a}
td.reproduced{background:#fde2e1}td.not_reproduced{background:#e3f1ff}
td.mitigated{background:#dcf5e3}td.not_mitigated{background:#ffe9c7}
td.skipped{background:#eeeeee}td.error{background:#f7c6f0}td.flaky{background:#fff3a8}
.unexpected{outline:3px solid #d00;outline-offset:-3px}
.unmeasured{outline:2px dashed #777;outline-offset:-3px}
td.stale .o{opacity:.45}
.meta{color:#555;font-size:12px}
.fail{color:#b00;font-weight:700}
.nowrap{white-space:nowrap}
.legend{font-size:13px;color:#333}
.legend span{display:inline-block;padding:.15em .5em;margin-right:.3em;border:1px solid #ccd;font-size:12px;color:#1b1f24}
</style></head><body>
<h1>GitOps compatibility matrix: nightly</h1>
<p class="meta">Newest night <a href="nights/{{.Newest.ID}}/report.html">{{.Newest.ID}}</a> · Kubernetes {{.Newest.Report.Kubernetes}} · {{len .Nights}} night(s) kept, the grids show the last {{.Window}}{{if .Supported}} · supported ArgoCD lines {{.Supported}} (green){{end}}</p>
<p class="legend"><span class="reproduced">R REPRODUCED</span><span class="not_reproduced">NR NOT_REPRODUCED</span><span class="mitigated">M MITIGATED</span><span class="not_mitigated">NM NOT_MITIGATED</span><span class="skipped">S SKIPPED</span><span class="error">E ERROR</span><span class="flaky">F FLAKY</span> Each cell: its newest outcome (faded: not run in the newest night), then a mark per night, oldest to newest (hollow: not run that night). Red outline: differs from its expectation; dashed: no measured expectation.</p>
<h2>Nights</h2>
<table><tr><th>night</th><th>started</th><th>cells</th><th>outcome changed</th><th>new releases that ran</th><th>need a look</th><th>unmeasured</th><th>run</th></tr>
{{range .Nights}}<tr><td class="nowrap"><a href="nights/{{.ID}}/report.html">{{.ID}}</a>{{if not .FirstNight}} · <a href="nights/{{.ID}}/diff.md">diff</a>{{end}}</td><td class="nowrap">{{.Started}}</td><td>{{.Cells}}</td><td>{{if .FirstNight}}<span class="meta">first night</span>{{else}}{{.Flips}}{{if .Failing}} <span class="fail">({{.Failing}} failed the nightly)</span>{{end}}{{end}}</td><td>{{join .NewReleases ", "}}</td><td>{{.Look}}</td><td>{{.Unmeasured}}</td><td>{{if .RunURL}}<a href="{{.RunURL}}">run</a>{{end}}</td></tr>
{{end}}</table>
{{range .Grids}}<h2>{{.Scenario}}{{if .Upstream}}<a href="{{.Upstream}}">upstream</a>{{end}}</h2>
<table><tr><th rowspan="{{if .Kube}}3{{else}}2{{end}}">variant / component</th>{{range .Lines}}<th class="line{{if .Supported}} supported{{end}}" colspan="{{.Span}}">ArgoCD {{.Line}}</th>{{end}}</tr>
<tr>{{range .Cols}}<th{{if .Supported}} class="supported"{{end}}>{{.ArgoCD}}</th>{{end}}</tr>
{{if .Kube}}<tr>{{range .Cols}}<th class="meta">{{.Kubernetes}}</th>{{end}}</tr>{{end}}
{{range .Rows}}<tr><td class="nowrap">{{.Variant}}<div class="meta">{{.Component}}</div></td>{{range .Cells}}{{if .}}<td class="cell {{lower .Latest.Outcome}}{{if .Latest.Unexpected}} unexpected{{end}}{{if .Latest.Unmeasured}} unmeasured{{end}}{{if .Stale}} stale{{end}}" title="{{if .Stale}}not run in the newest night; {{end}}{{.Night}}: {{.Latest.Outcome}}{{if .Latest.Unmeasured}}, no measured expectation{{else}}, expected {{.Latest.Expected}}{{end}}: {{.Latest.Reason}}"><div class="o">{{abbrev .Latest.Outcome}}</div><div class="marks">{{range .Marks}}<span class="{{.Class}}" title="{{.Title}}"></span>{{end}}</div></td>{{else}}<td></td>{{end}}{{end}}</tr>
{{end}}</table>
{{end}}
</body></html>
`))
