package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/schedule"
)

// ScenarioTable renders the README's table of scenarios from matrix.yaml, in
// its order: the name, the bug in one line (title), the upstream issue and
// the findings page.
func ScenarioTable(data *matrix.Data, code runner.Scenarios) (string, error) {
	var b strings.Builder
	b.WriteString("| scenario | the bug | upstream | findings |\n|---|---|---|---|\n")
	for _, s := range data.Scenarios {
		if s.Title == "" {
			return "", fmt.Errorf("scenario %q: no title in suites/matrix.yaml (the bug in one line, for the README's table)", s.Name)
		}
		dir, err := scenarioDir(code, s.Name)
		if err != nil {
			return "", err
		}
		issue, err := issueRef(s.Upstream)
		if err != nil {
			return "", fmt.Errorf("scenario %q: %w", s.Name, err)
		}
		fmt.Fprintf(&b, "| `%s` | %s | [%s](%s) | [%s](%s/README.md) |\n", s.Name, cell(s.Title), issue, s.Upstream, dir, dir)
	}
	return b.String(), nil
}

// issueRef names a GitHub issue or pull request URL as owner/repo#N.
func issueRef(u string) (string, error) {
	bad := fmt.Errorf("upstream %q is not a GitHub issue or pull request URL", u)
	p, err := url.Parse(u)
	if err != nil {
		return "", bad
	}
	parts := strings.Split(strings.Trim(p.Path, "/"), "/")
	if p.Host != "github.com" || len(parts) != 4 || (parts[2] != "issues" && parts[2] != "pull") {
		return "", bad
	}
	return parts[0] + "/" + parts[1] + "#" + parts[3], nil
}

// CostTable renders docs/running.md's table of what the main commands run
// and cost, from the plan: each scenario's quick tier (make e2e's default) and
// full tier, and make matrix; offline with the sources beside the checkout,
// each cell priced at its scenario's seconds: (no report read), and the
// builds a new machine needs at the cold costs measured on one
// (pkg/runner/coldcost.yaml), the node image beside the prebuild.
func CostTable(cat *catalog.Catalog, data *matrix.Data, repo string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "| command | cells (SKIPPED) | clusters, installs | warm, 1 cluster | warm, 3 clusters | builds on a new machine (%s's) |\n|---|---|---|---|---|---|\n", runner.DocsMachine())
	row := func(command string, sel matrix.Selection) error {
		cells, err := data.Plan(cat, sel)
		if err != nil {
			return fmt.Errorf("%s: %w", command, err)
		}
		e := schedule.EstimateOf(cells, 1, schedule.NoCosts(), func(c matrix.Cell) string { return runner.Skipped(cat, c, images.Offline) })
		// what a new machine adds: the node image beside the prebuild, then
		// the builds left to their cells (runner.Forecast.Cold)
		builds := runner.ColdBuilds(cat, cells, repo)
		f := runner.Forecast{Estimate: e, Builds: builds}.On(1)
		cold := f.Cold() - f.Warm()
		fmt.Fprintf(&b, "| `%s` | %d (%d) | %d, %d | %s | %s | %d, about %s |\n", command, e.Cells, e.Skipped, e.Clusters, e.Installs,
			minutes(e.Wall(1)), minutes(e.Wall(3)), len(builds), minutes(cold))
		return nil
	}
	for _, s := range data.Scenarios {
		if err := row("make e2e SCENARIO="+s.Name, matrix.Selection{Scenarios: []string{s.Name}, Tier: matrix.TierQuick}); err != nil {
			return "", err
		}
	}
	for _, s := range data.Scenarios {
		if err := row("make e2e SCENARIO="+s.Name+" TIER=full", matrix.Selection{Scenarios: []string{s.Name}, Tier: matrix.TierFull}); err != nil {
			return "", err
		}
	}
	if err := row("make matrix", matrix.Selection{Tier: matrix.TierFull}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// minutes is d as the table says it: whole minutes, or hours and minutes.
func minutes(d time.Duration) string {
	m := int(d.Round(time.Minute).Minutes())
	if m < 60 {
		return fmt.Sprintf("%d min", m)
	}
	return fmt.Sprintf("%dh%02d", m/60, m%60)
}
