package main

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/report/render"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/suites"
)

// exampleFile is the worked example docs/writing-scenarios.md shows.
const exampleFile = "docs/example/example.go"

// Results renders docs/results.md: the measured expectations of
// suites/matrix.yaml by scenario, then the newest merged report's results,
// from reportDir when given, else as the previous page had them.
func Results(reportDir, previous string) (string, error) {
	cat, err := catalog.Load()
	if err != nil {
		return "", err
	}
	data, err := suites.Matrix()
	if err != nil {
		return "", err
	}
	var section string
	if reportDir != "" {
		r, err := report.LoadDir(reportDir)
		if err != nil {
			return "", err
		}
		section = ReportSection(r)
	} else if section, err = keptSection(previous); err != nil {
		return "", err
	}
	return ResultsPage(cat, data, suites.Scenarios(), section)
}

// ResultsPage renders the page from the data; section is the report part.
func ResultsPage(cat *catalog.Catalog, data *matrix.Data, code runner.Scenarios, section string) (string, error) {
	var b strings.Builder
	b.WriteString(generated("make docs", "suites/matrix.yaml (and the report given as make docs REPORT=dir)"))
	b.WriteString("# Results\n\nWhat each scenario showed on a cluster, as `suites/matrix.yaml` keeps it: every\n" +
		"expectation names the ArgoCD releases, component versions and Kubernetes versions it was measured on\n" +
		"and the runs (run ids, which start with the date) it was read in; the first\n" +
		"matching expectation wins, and a cell none covers is *unmeasured*. What the\n" +
		"outcomes mean is in the [README](../README.md#concepts); each scenario's findings\n" +
		"page says what the runs showed and why.\n\n")
	fmt.Fprintf(&b, "Kubernetes %s unless a cell says otherwise (kind %s); the default ArgoCD axis: %s.\n\n", cat.Kubernetes.Default, cat.Kind, strings.Join(cat.ArgoCD.Default, ", "))
	for _, s := range data.Scenarios {
		fmt.Fprintf(&b, "- [`%s`](#%s)\n", s.Name, s.Name)
	}
	b.WriteString("- [The newest merged report](#the-newest-merged-report)\n")
	ranges, err := testedRanges(cat, data)
	if err != nil {
		return "", err
	}
	for _, s := range data.Scenarios {
		dir, err := scenarioDir(code, s.Name)
		if err != nil {
			return "", err
		}
		axis := s.ArgoCDTags(cat.ArgoCD.Default)
		slices.SortFunc(axis, catalog.CompareTags)
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", s.Name, s.Summary)
		fmt.Fprintf(&b, "Upstream: %s. Findings: [%s/README.md](../%s/README.md). Component `%s`; ArgoCD axis %s.\n\n",
			s.Upstream, dir, dir, s.Component, strings.Join(axis, ", "))
		if s.OfflineSkip != "" {
			fmt.Fprintf(&b, "Offline: %s\n\n", cell(s.OfflineSkip))
		}
		b.WriteString("| variant | kind | component versions | Kubernetes | what it does |\n|---|---|---|---|---|\n")
		for _, v := range s.Variants {
			kubes := v.Kubernetes
			if len(kubes) == 0 {
				kubes = s.Kubernetes
			}
			if len(kubes) == 0 {
				kubes = []string{cat.Kubernetes.Default}
			}
			what := v.Summary
			if v.KubernetesWhy != "" {
				what += " (Kubernetes axis: " + v.KubernetesWhy + ")"
			}
			if len(v.ArgoCD) > 0 {
				what += " (ArgoCD " + strings.Join(v.ArgoCD, ", ") + ": " + v.ArgoCDWhy + ")"
			}
			var shown []string
			for _, k := range kubes {
				if only, ok := v.KubernetesOnlyFor[k]; ok {
					k += " (only " + strings.Join(only, ", ") + ")"
				}
				shown = append(shown, k)
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", v.Name, kind(v), orDash(strings.Join(v.Versions(), ", ")), strings.Join(shown, ", "), cell(what))
		}
		tested, err := TestedSection(cat, data, s, ranges)
		if err != nil {
			return "", err
		}
		b.WriteString("\n" + tested)
		b.WriteString("\n| variant | ArgoCD | component | Kubernetes | mode | expected | runs | measured |\n|---|---|---|---|---|---|---|---|\n")
		n := 0
		for _, e := range data.Expectations {
			if e.Scenario != s.Name {
				continue
			}
			n++
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", orAll(commas(e.Variant)), orAll(commas(e.ArgoCD)), orAll(commas(e.ComponentVersion)),
				markOutside(ranges, e), mode(e.Offline), e.Expected, orDash(strings.Join(e.Runs, ", ")), cell(e.Why))
		}
		if n == 0 {
			b.WriteString("| | | | | | no expectation yet: every cell is unmeasured | | |\n")
		}
	}
	b.WriteString("\n## The newest merged report\n\n")
	b.WriteString(markers("report", section))
	return b.String(), nil
}

// scenarioDir is the directory of a scenario's code (scenarios/<dir>), read
// from its Feature function's package: the name a reader looks for.
func scenarioDir(code runner.Scenarios, name string) (string, error) {
	s, ok := code[name]
	if !ok || s.Feature == nil {
		return "", fmt.Errorf("scenario %q: no code registered (suites.Scenarios)", name)
	}
	fn := runtime.FuncForPC(reflect.ValueOf(s.Feature).Pointer()).Name() // .../scenarios/kyverno.Feature
	const module = "github.com/gitops-conformance/suite/"
	pkg, _, _ := strings.Cut(strings.TrimPrefix(fn, module), ".")
	if !strings.HasPrefix(fn, module+"scenarios/") {
		return "", fmt.Errorf("scenario %q: Feature %s is not in scenarios/", name, fn)
	}
	return pkg, nil
}

// ReportSection renders a report's results for the page: its job summary,
// one heading level down.
func ReportSection(r *report.Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Run `%s` (given to `make docs REPORT=...`).\n\n", r.RunID)
	for _, line := range strings.SplitAfter(render.Summary(r), "\n") {
		if strings.HasPrefix(line, "#") {
			line = "#" + line
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// noReport is the section before any report was given.
const noReport = "None given yet: `make docs REPORT=<dir>` with a merged run's directory (the nightly's artifact, or make report-merge's output) puts its results here.\n"

// keptSection is the report section of the previous page, or noReport when
// there is no previous page.
func keptSection(previous string) (string, error) {
	b, err := os.ReadFile(previous)
	if errors.Is(err, os.ErrNotExist) {
		return noReport, nil
	}
	if err != nil {
		return "", fmt.Errorf("read the previous results page: %w", err)
	}
	s, err := Section(string(b), "report")
	if err != nil {
		return "", fmt.Errorf("%s: %w", previous, err)
	}
	return s, nil
}

func kind(v matrix.Variant) string {
	switch {
	case v.Mitigation():
		return "mitigation"
	case v.Name == matrix.Minimal:
		return "minimal"
	}
	return "bug"
}

func mode(offline *bool) string {
	switch {
	case offline == nil:
		return "any"
	case *offline:
		return "offline"
	}
	return "online"
}

func commas(s string) string { return strings.ReplaceAll(s, ",", ", ") }

func orAll(s string) string {
	if s == "" || s == "*" {
		return "all"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
