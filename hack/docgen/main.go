package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/suites"
)

func main() {
	out := flag.String("out", "docs", "directory to write the pages into")
	reportDir := flag.String("report", "", "a report directory (a merged run) whose results go into results.md; without it, results.md keeps the report section of -previous")
	previous := flag.String("previous", "docs/results.md", "the committed results.md, whose report section is kept when no -report is given")
	readme := flag.String("readme", "README.md", "where to write README.md with its generated sections (make verify writes it elsewhere and compares)")
	findingsRoot := flag.String("findings", ".", "where to write scenarios/*/README.md with their tested-range section (make verify writes them elsewhere and compares)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "docgen: unexpected arguments %q (flags: -out, -readme, -findings, -report, -previous)\n", flag.Args())
		os.Exit(2)
	}
	if err := run(*out, *readme, *findingsRoot, *reportDir, *previous); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

// generated are the pages of docs/ make docs writes whole, left out of the
// hand-written pages' checks. upgrade-check-findings.md is written whole too,
// but of prose (the validations' findings and the notes), so it is checked.
var generatedPages = map[string]bool{"vocabulary.md": true, "results.md": true}

func run(out, readme, findingsRoot, reportDir, previous string) error {
	vocabulary, names, err := Vocabulary(".", vocabularyPackages)
	if err != nil {
		return err
	}
	results, err := Results(reportDir, previous)
	if err != nil {
		return err
	}
	example, err := os.ReadFile(exampleFile)
	if err != nil {
		return fmt.Errorf("read the worked example: %w", err)
	}
	data, err := suites.Matrix()
	if err != nil {
		return err
	}
	scenarios, err := ScenarioTable(data, suites.Scenarios())
	if err != nil {
		return err
	}
	cat, err := catalog.Load()
	if err != nil {
		return err
	}
	repo, err := filepath.Abs(".")
	if err != nil {
		return err
	}
	costs, err := CostTable(cat, data, repo)
	if err != nil {
		return err
	}
	packages, err := PackageTable(".")
	if err != nil {
		return err
	}
	fields, err := ReportFields()
	if err != nil {
		return err
	}
	upgradeFindings, err := UpgradeFindings(upgradeNotesFile)
	if err != nil {
		return err
	}
	checks := conformChecks()
	checksTable, err := ChecksTable(checks, suites.Scenarios())
	if err != nil {
		return err
	}
	// made are the pages this run writes, by their path in the checkout: the
	// generated ones whole, the hand-written ones with their generated sections
	made := map[string]string{"docs/vocabulary.md": vocabulary, "docs/results.md": results, "docs/upgrade-check-findings.md": upgradeFindings,
		"docs/upgrade-check-changes.md": UpgradeChanges()}
	for path, sections := range map[string]map[string]string{
		"README.md":                 {"scenarios": scenarios, "checks": ChecksLine(checks)},
		"docs/conform.md":           {"checks": checksTable},
		"docs/reports.md":           {"fields": fields},
		"docs/writing-scenarios.md": {"example": "```go\n" + string(example) + "```\n"},
		"docs/design.md":            {"packages": packages},
		"docs/running.md":           {"costs": costs},
	} {
		if made[path], err = splicePage(path, sections); err != nil {
			return err
		}
	}
	pages := map[string]string{}
	for _, name := range []string{"README.md", "docs/writing-scenarios.md", "docs/design.md", "docs/running.md", "docs/offline-online.md", "docs/reports.md"} {
		if pages[name] = made[name]; pages[name] != "" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		pages[name] = string(b)
	}
	if bad := CheckMentions(pages, names); len(bad) > 0 {
		return fmt.Errorf("pages name what the code does not have: %s", strings.Join(bad, "; "))
	}
	findingsPages, err := FindingsPages(cat, data, suites.Scenarios())
	if err != nil {
		return err
	}
	handWritten := map[string]string{}
	more, _ := filepath.Glob("docs/*.md")
	findings, _ := filepath.Glob("scenarios/*/README.md")
	for _, name := range append(append(more, findings...), "README.md") {
		if generatedPages[filepath.Base(name)] && filepath.Dir(name) == "docs" {
			continue
		}
		if page, ok := made[name]; ok {
			handWritten[name] = page
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		handWritten[name] = string(b)
	}
	if bad := CheckNewest(handWritten); len(bad) > 0 {
		return fmt.Errorf("%d sentence(s) go stale with the next release; date and source them, or generate them:\n  %s", len(bad), strings.Join(bad, "\n  "))
	}
	// the Makefile's help and the workflows' inputs are read as pages too
	counted := maps.Clone(handWritten)
	workflows, _ := filepath.Glob(".github/workflows/*.yml")
	for _, name := range append(workflows, "Makefile") {
		if b, err := os.ReadFile(name); err == nil {
			counted[name] = string(b)
		}
	}
	if bad := CheckCounts(counted); len(bad) > 0 {
		return fmt.Errorf("counts typed by hand (stale with the next check, scenario or known answer; say \"the bug classes\", \"every check\" and let a generated list count): %s", strings.Join(bad, "; "))
	}
	if bad, err := checkTests(made); err != nil {
		return err
	} else if len(bad) > 0 {
		return fmt.Errorf("pages cite tests no _test.go defines (rename the citation, or the guard it promises is gone): %s", strings.Join(bad, "; "))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	var errs []error
	for path, content := range made {
		to := filepath.Join(out, strings.TrimPrefix(path, "docs/"))
		if path == "README.md" {
			to = readme
		}
		if err := os.WriteFile(to, []byte(content), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", to, err))
		}
	}
	for name, content := range findingsPages {
		path := filepath.Join(findingsRoot, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", path, err))
		}
	}
	return errors.Join(errs...)
}

// splicePage reads a hand-written page and fills each of its generated
// sections, by marker name.
func splicePage(path string, sections map[string]string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	page := string(b)
	for _, name := range slices.Sorted(maps.Keys(sections)) {
		if page, err = Splice(page, name, sections[name]); err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
	}
	return page, nil
}

// checkTests checks the tests every page of the checkout cites, the pages
// this run makes as it makes them.
func checkTests(made map[string]string) ([]string, error) {
	tests, err := TestFuncs(".")
	if err != nil {
		return nil, err
	}
	pages, err := Pages(".")
	if err != nil {
		return nil, err
	}
	maps.Copy(pages, made)
	return CheckTests(pages, tests), nil
}
