package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// testedRanges is pkg/argocd/tested.yaml, refused when it lacks a release
// suites/matrix.yaml names: make tested-ranges reads it from the release.
func testedRanges(cat *catalog.Catalog, data *matrix.Data) (map[string]argocd.Tested, error) {
	ranges, err := argocd.Recorded()
	if err != nil {
		return nil, err
	}
	tags, err := data.ArgoCDReleases(cat)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, t := range tags {
		if _, ok := ranges[t]; !ok {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s has no tested Kubernetes range for %s: run make tested-ranges and commit it", argocd.RecordedFile, strings.Join(missing, ", "))
	}
	return ranges, nil
}

// outsideOf says which of kubes are outside tag's tested range (none when
// all are in it), or that it could not tell.
func outsideOf(ranges map[string]argocd.Tested, tag string, kubes []string) (outside []string, couldNotTell bool) {
	t := ranges[tag]
	if t.Unread != "" || len(t.Minors) == 0 {
		return nil, true
	}
	for _, k := range kubes {
		if !t.Has(k) {
			outside = append(outside, k)
		}
	}
	return outside, false
}

// TestedSection says, for a scenario's cells on either tier, each ArgoCD
// release's tested Kubernetes range (as the release's own file says) and
// the cells outside it: marked in the reports, not failed.
func TestedSection(cat *catalog.Catalog, data *matrix.Data, s matrix.Scenario, ranges map[string]argocd.Tested) (string, error) {
	type pair struct{ argo, kube string }
	variants := map[pair][]string{}
	var tags []string
	for _, tier := range matrix.Tiers {
		cells, err := data.Plan(cat, matrix.Selection{Scenarios: []string{s.Name}, Tier: tier})
		if err != nil {
			return "", err
		}
		for _, c := range cells {
			p := pair{c.ArgoCD.String(), c.Kubernetes.Version}
			if p.kube == "" {
				p.kube = cat.Kubernetes.Default
			}
			if !slices.Contains(tags, p.argo) {
				tags = append(tags, p.argo)
			}
			if !slices.Contains(variants[p], c.Variant.Name) {
				variants[p] = append(variants[p], c.Variant.Name)
			}
		}
	}
	slices.SortFunc(tags, catalog.CompareTags)
	var b strings.Builder
	b.WriteString("Each ArgoCD release's tested Kubernetes range, as its own `" + argocd.TestedFile + "` says\n" +
		"(recorded in `" + argocd.RecordedFile + "` by `make tested-ranges`; a run reads it again for its report):\n\n")
	b.WriteString("| ArgoCD | tested on | this scenario's cells outside it (marked in the report, not failed) |\n|---|---|---|\n")
	for _, tag := range tags {
		var kubes []string
		for p := range variants {
			if p.argo == tag && !slices.Contains(kubes, p.kube) {
				kubes = append(kubes, p.kube)
			}
		}
		slices.SortFunc(kubes, catalog.CompareTags)
		outside, unknown := outsideOf(ranges, tag, kubes)
		t := ranges[tag]
		switch {
		case unknown:
			fmt.Fprintf(&b, "| %s | could not tell: %s | could not tell, on %s |\n", tag, cell(t.Unread), strings.Join(kubes, ", "))
		case len(outside) == 0:
			fmt.Fprintf(&b, "| %s | %s | none |\n", tag, t)
		default:
			var parts []string
			for _, k := range outside {
				vs := variants[pair{tag, k}]
				slices.Sort(vs)
				parts = append(parts, fmt.Sprintf("%s (%s)", k, strings.Join(vs, ", ")))
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", tag, t, strings.Join(parts, "; "))
		}
	}
	return b.String(), nil
}

// markOutside is an expectation's Kubernetes column with each version
// outside the tested range of one of its ArgoCD releases marked.
func markOutside(ranges map[string]argocd.Tested, e matrix.Expectation) string {
	kubes, tags := matrix.ParseList(e.Kubernetes), matrix.ParseList(e.ArgoCD)
	if len(kubes) == 0 || len(tags) == 0 || slices.Contains(kubes, "*") || slices.Contains(tags, "*") {
		return orAll(commas(e.Kubernetes))
	}
	var out []string
	for _, k := range kubes {
		var outsideFor, unknownFor []string
		for _, tag := range tags {
			outside, unknown := outsideOf(ranges, tag, []string{k})
			switch {
			case unknown:
				unknownFor = append(unknownFor, tag)
			case len(outside) > 0:
				outsideFor = append(outsideFor, tag)
			}
		}
		var notes []string
		if len(outsideFor) > 0 {
			notes = append(notes, "outside the tested range of "+strings.Join(outsideFor, ", "))
		}
		if len(unknownFor) > 0 {
			notes = append(notes, "tested range of "+strings.Join(unknownFor, ", ")+" could not tell")
		}
		if len(notes) > 0 {
			k += " (" + strings.Join(notes, "; ") + ")"
		}
		out = append(out, k)
	}
	return strings.Join(out, ", ")
}

// FindingsPages is each scenario README (scenarios/<dir>/README.md) with
// its "tested-range" section spliced: the TestedSection of every scenario
// whose code is in that directory.
func FindingsPages(cat *catalog.Catalog, data *matrix.Data, code runner.Scenarios) (map[string]string, error) {
	ranges, err := testedRanges(cat, data)
	if err != nil {
		return nil, err
	}
	sections := map[string]string{}
	for _, s := range data.Scenarios {
		dir, err := scenarioDir(code, s.Name)
		if err != nil {
			return nil, err
		}
		section, err := TestedSection(cat, data, s, ranges)
		if err != nil {
			return nil, err
		}
		name := filepath.Join(dir, "README.md")
		if sections[name] != "" {
			sections[name] += "\n"
		}
		sections[name] += "For `" + s.Name + "`:\n\n" + section
	}
	pages := map[string]string{}
	for name, section := range sections {
		page, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("read the findings page: %w", err)
		}
		if pages[name], err = Splice(string(page), "tested-range", section); err != nil {
			return nil, fmt.Errorf("%s: %w (each findings page keeps its scenarios' tested ranges there)", name, err)
		}
	}
	return pages, nil
}
