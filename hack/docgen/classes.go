package main

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/conform"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// A conform check as the docs list it: its name, the scenario whose bug it
// generalizes (or the upstream report of a class no scenario reproduces),
// and what it does and when it is REPRODUCED.
type conformCheck struct{ Name, Seed, Report, Summary string }

// conformChecks are make conform's checks in the order a run takes them.
// The one place docgen reads pkg/conform: what moves the registry changes
// this function only.
func conformChecks() []conformCheck {
	var out []conformCheck
	for _, c := range conform.Checks() {
		out = append(out, conformCheck{c.Name, c.Seed, c.Report, c.Summary})
	}
	return out
}

// classOf is each check's bug class in a few words, for docs/conform.md's
// table (the code names the check, its seed and what it does; this names the
// class to a chart's author).
var classOf = map[string]string{
	"crd-diff":              "a resource ArgoCD can never bring in sync",
	"hook-stuck":            "a sync held by its own hook",
	"self-blocking-webhook": "the chart's webhook rejects the chart's own Pods",
	"leftover-webhook":      "a webhook configuration outlives the chart",
	"namespace-kept":        "the chart takes a namespace it did not make",
	"deletion-hooks":        "the chart's deletion hooks do not decide its deletion",
	"helm-lookup":           "what the chart renders from Helm's lookup never reaches the cluster",
	"hook-cannot-run":       "a hook that cannot run holds every sync",
	"hook-kind-missing":     "a hook of a kind another hook makes fails the whole sync",
	"self-heal-fight":       "ArgoCD's self-heal and a controller write one object in turn",
}

// ChecksTable is docs/conform.md's table of the checks: a row per check,
// its class and seed scenario (linked to its findings) and what it does, as
// the report's cells say it. A check without a class in classOf, or a class
// for no check, is refused.
func ChecksTable(checks []conformCheck, code runner.Scenarios) (string, error) {
	if err := classesMatch(checks); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("| check | class (seed scenario, or upstream report) | what it does; REPRODUCED when |\n|---|---|---|\n")
	for _, c := range checks {
		if c.Seed == "" {
			fmt.Fprintf(&b, "| `%s` | %s (%s) | %s |\n", c.Name, classOf[c.Name], reportLink(c.Report), cell(c.Summary))
			continue
		}
		dir, err := scenarioDir(code, c.Seed)
		if err != nil {
			return "", fmt.Errorf("check %q: %w", c.Name, err)
		}
		fmt.Fprintf(&b, "| `%s` | %s ([%s](../%s/README.md)) | %s |\n", c.Name, classOf[c.Name], c.Seed, dir, cell(c.Summary))
	}
	return b.String(), nil
}

// reportLink links an upstream report, owner/repo#N, to its GitHub thread.
func reportLink(report string) string {
	repo, n, ok := strings.Cut(report, "#")
	if !ok {
		return report
	}
	return fmt.Sprintf("[%s](https://github.com/%s/issues/%s)", report, repo, n)
}

// ChecksLine is the README's list of the checks in one line: how many, and
// each with its seed scenario or upstream report.
func ChecksLine(checks []conformCheck) string {
	names := make([]string, len(checks))
	for i, c := range checks {
		names[i] = fmt.Sprintf("`%s` (%s)", c.Name, cmp.Or(c.Seed, c.Report))
	}
	return fmt.Sprintf("%d checks, each a bug class a scenario reproduced or an upstream report describes: %s.\n", len(checks), strings.Join(names, ", "))
}

func classesMatch(checks []conformCheck) error {
	var missing []string
	known := map[string]bool{}
	for _, c := range checks {
		known[c.Name] = true
		if classOf[c.Name] == "" {
			missing = append(missing, c.Name)
		}
	}
	var extra []string
	for _, name := range slices.Sorted(maps.Keys(classOf)) {
		if !known[name] {
			extra = append(extra, name)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		return fmt.Errorf("hack/docgen's classOf is not make conform's checks: no class for %q, a class for no check %q", missing, extra)
	}
	return nil
}

// handCount is a count of conform's checks typed into a page: it goes
// stale with the next check, where the generated list does not.
var handCount = regexp.MustCompile(`(?i)\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d+) (bug )?classes\b`)

// CheckCounts finds hand-typed counts of the bug classes in the pages,
// generated sections left out.
func CheckCounts(pages map[string]string) []string {
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(pages)) {
		for i, line := range strings.Split(stripGenerated(pages[name]), "\n") {
			if m := handCount.FindString(line); m != "" {
				bad = append(bad, fmt.Sprintf("%s:%d: %q", name, i+1, m))
			}
		}
	}
	return bad
}
