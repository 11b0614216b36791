package main

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
)

// reportTypes introduces each type of report.json that docs/reports.md
// tables, by its Go name; the tables come in the order report.Report reaches
// them.
var reportTypes = map[string]string{
	"Report":   "one per run or merge (`pkg/report/report.go`)",
	"Cell":     "one scenario x variant x ArgoCD release x component version x Kubernetes version",
	"Run":      "one run of a cell repeated with `REPEAT=N`",
	"Source":   "one run a merged report was made from",
	"Support":  "how the run's ArgoCD releases stood with upstream, as the run read the module proxy's listing; see [argocd-releases.md](argocd-releases.md#which-releases-upstream-supports)",
	"Estimate": "what the run's plan said before its first build; `make plan` sets it against what the run took",
}

// reportFields says what each field of report.json holds, by type and JSON
// name: docs/reports.md's tables are the fields the types have, each
// described here (a field without a description, or a description of no
// field, fails make docs).
var reportFields = map[string]string{
	"Report.run_id":           "`YYYYMMDD-HHMMSS` (UTC start), `-2`, `-3`... when two runs started in the same second",
	"Report.started":          "when the run started",
	"Report.finished":         "when it finished",
	"Report.offline":          "images built from sources (true) or pulled",
	"Report.registry_mirror":  "the mirror the nodes pulled through (online with `REGISTRY_MIRROR`)",
	"Report.kubernetes":       "the Kubernetes versions the run's cells ran on, oldest first, comma-separated (`v1.33.13, v1.35.4`); each cell names its own",
	"Report.command":          "the command line that started the run",
	"Report.notes":            "what the run wants a reader to know: the mode and why, offline adaptations, a `minimal` cell that disagrees with its `bug` cells, a merge's differences",
	"Report.cells":            "the results",
	"Report.stopped":          "why the run stopped before its end (a signal, the time limit, a setup that failed)",
	"Report.not_run":          "the planned cells it never started",
	"Report.unmeasured_fails": "the run was asked (`UNMEASURED=fail`) to fail on cells with no measured expectation",
	"Report.sources":          "a merged report's runs",
	"Report.argocd_support":   "how each ArgoCD release of the run stood with upstream",
	"Report.estimate":         "what the run's plan said before its first build",
	"Report.phases":           "where the run's own time went outside its cells, in seconds: `setup` (preflight, the first cluster) and `setup_build` (the builds before the first cell)",

	"Cell.scenario":                 "the scenario, as `make list` names it",
	"Cell.variant":                  "the variant, as `make list` names it",
	"Cell.argocd":                   "the ArgoCD tag",
	"Cell.component":                "the catalog's component name",
	"Cell.component_version":        "the component's release the cell ran on",
	"Cell.kubernetes":               "the Kubernetes version the cell's cluster reported (its API server's gitVersion); a report written before cells carried it is read (`report.Load`) as if each had the run's. The cell's ID ends in `_k8s-<version>`",
	"Cell.outcome":                  "REPRODUCED, NOT_REPRODUCED (`bug`, `minimal`); MITIGATED, NOT_MITIGATED (mitigations); SAFE, CHANGED, BROKEN (`make upgrade-check`); SKIPPED; ERROR; FLAKY (repeated runs disagree)",
	"Cell.expected":                 "the expectation from `suites/matrix.yaml` (RACE allowed); empty when none covers the cell",
	"Cell.expected_why":             "the measurement the expectation rests on",
	"Cell.unexpected":               "the outcome is not what the expectation allows",
	"Cell.unmeasured":               "no measured expectation covers the cell, which ran (a SKIPPED cell never is: its reason says why it did not run)",
	"Cell.reason":                   "why the verdict (what the checks saw), or where an ERROR happened; `k/N` with REPEAT",
	"Cell.duration_seconds":         "the cell's time, all its runs",
	"Cell.evidence":                 "its evidence directory, relative to the report",
	"Cell.upstream":                 "the upstream issue",
	"Cell.runs":                     "with REPEAT > 1: each run",
	"Cell.observations":             "what the cell recorded that is not a verdict (`env.Observe`, the sources it used)",
	"Cell.explained":                "of a make upgrade-check verdict, the behaviour changes of ArgoCD its reason names, by id (docs/upgrade-check-changes.md)",
	"Cell.unexplained":              "a make upgrade-check CHANGED by a difference no behaviour change of the catalog explains: what a team reads first",
	"Cell.upgraded_to":              "the ArgoCD release the cell upgraded to in place (make upgrade-check's TO, an argocd-upgrade variant's)",
	"Cell.argocd_tested_kubernetes": "the Kubernetes minors the cell's ArgoCD release was tested on, as the release's own `docs/operator-manual/tested-kubernetes-versions.md` says (read from its module zip at run time, e.g. \"v1.32-v1.35\"); `docs/results.md` and each scenario's findings page show the same ranges from `pkg/argocd/tested.yaml`, which `make tested-ranges` writes (make verify says when a release in `suites/matrix.yaml` lacks one)",
	"Cell.argocd_tested":            "whether the cell's Kubernetes is among them: `in range`, `outside` or `could not tell: why` (a read that failed). A cell outside is marked in report.md and report.html, never failed",
	"Cell.phases":                   "where the cell's run spent its time, seconds by phase: `build` (images built, or found, or waited for), `cluster` (a cluster made for its Kubernetes version), `install` (its ArgoCD release), `steps` (its scenario's own steps), `waits` and `holds` (its waits for a state and holds of one), `evidence`, `teardown`; `bin/conformance report phases DIR` tabulates them",

	"Run.outcome":          "the run's outcome",
	"Run.reason":           "why",
	"Run.duration_seconds": "the run's time",
	"Run.evidence":         "the run's own evidence directory (`cells/<cell>/run-<i>/`), relative to the report",
	"Run.phases":           "where the run's time went, seconds by phase (as the cell's)",

	"Source.run_id":     "the run's ID",
	"Source.dir":        "the run's directory, relative to the merged report",
	"Source.started":    "when the run started",
	"Source.finished":   "when it finished",
	"Source.offline":    "its mode",
	"Source.kubernetes": "its Kubernetes versions",
	"Source.command":    "the command line that started it",
	"Source.cells":      "how many cells it held",

	"Support.supported_lines": "the minor lines upstream supports as the run read them, newest first (\"3.6 (newest v3.6.1)\" on 2026-11-26)",
	"Support.releases":        "each release's tag: `supported`, `end-of-life` or `could not tell`",
	"Support.could_not_tell":  "why the run could not tell, when a listing failed",

	"Estimate.warm_seconds": "the plan's warm estimate, wall time",
	"Estimate.cold_seconds": "its cold estimate, with the builds still needed",
	"Estimate.builds":       "the builds the plan found still needed",
	"Estimate.scenarios":    "each scenario's cell time, seconds (its runs, no install)",
	"Estimate.parallel":     "the clusters at once",
}

// ReportFields is docs/reports.md's tables of report.json: for report.Report
// and each type of the package its fields reach, a row per JSON field (its
// name, its type, whether a report may leave it out, what it holds).
func ReportFields() (string, error) {
	types := reachedTypes(reflect.TypeFor[report.Report]())
	var b strings.Builder
	described := map[string]bool{}
	var missing []string
	for _, t := range types {
		intro, ok := reportTypes[t.Name()]
		if !ok {
			missing = append(missing, "type "+t.Name())
		}
		fmt.Fprintf(&b, "`report.%s`, %s:\n\n| field | type | what |\n|---|---|---|\n", t.Name(), intro)
		for i := range t.NumField() {
			f := t.Field(i)
			name, optional, ok := jsonName(f)
			if !ok {
				continue
			}
			key := t.Name() + "." + name
			what, ok := reportFields[key]
			if !ok {
				missing = append(missing, key)
			}
			described[key] = true
			typ := typeName(f.Type)
			if optional {
				typ += ", optional"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, typ, cell(what))
		}
		b.WriteString("\n")
	}
	var stale []string
	for _, key := range slices.Sorted(maps.Keys(reportFields)) {
		if !described[key] {
			stale = append(stale, key)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(reportTypes)) {
		if !slices.ContainsFunc(types, func(t reflect.Type) bool { return t.Name() == name }) {
			stale = append(stale, "type "+name)
		}
	}
	if len(missing) > 0 || len(stale) > 0 {
		return "", fmt.Errorf("hack/docgen's reportFields is not report.json's fields: not described %q, described but not in pkg/report %q", missing, stale)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// reachedTypes are root and the struct types of pkg/report its fields
// reach (through slices, maps and pointers), root first, then breadth first.
func reachedTypes(root reflect.Type) []reflect.Type {
	types := []reflect.Type{root}
	for i := 0; i < len(types); i++ {
		t := types[i]
		for j := range t.NumField() {
			if _, _, ok := jsonName(t.Field(j)); !ok {
				continue
			}
			e := elem(t.Field(j).Type)
			if e.Kind() == reflect.Struct && e.PkgPath() == root.PkgPath() && !slices.Contains(types, e) {
				types = append(types, e)
			}
		}
	}
	return types
}

// jsonName is a field's name in report.json and whether it is omitted when
// empty; ok is false for a field report.json does not hold.
func jsonName(f reflect.StructField) (name string, optional, ok bool) {
	tag := f.Tag.Get("json")
	if !f.IsExported() || tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, slices.Contains(strings.Split(opts, ","), "omitempty"), true
}

// elem is the type a slice, map or pointer holds, t itself otherwise.
func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// typeName is a field's type as JSON holds it.
func typeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[time.Time]():
		return "RFC 3339 time"
	case t.Kind() == reflect.Pointer:
		return typeName(t.Elem())
	case t.Kind() == reflect.Slice:
		return "[]" + typeName(t.Elem())
	case t.Kind() == reflect.Map:
		return "object of " + typeName(t.Elem()) + "s"
	case t.Kind() == reflect.Struct:
		return t.Name()
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "bool"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "number"
	}
	return t.String()
}
