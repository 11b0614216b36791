package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/gitops-conformance/suite/suites"
)

// upgradeNotesFile is the hand-written end of docs/upgrade-check-findings.md:
// what make upgrade-check measured that no validation carries.
const upgradeNotesFile = "suites/upgrade-check-notes.md"

// UpgradeFindings renders docs/upgrade-check-findings.md from
// suites/upgrade-check-validate.yaml and the notes in notesFile.
func UpgradeFindings(notesFile string) (string, error) {
	vs, err := suites.UpgradeValidations()
	if err != nil {
		return "", err
	}
	notes, err := os.ReadFile(notesFile)
	if err != nil {
		return "", fmt.Errorf("read the upgrade-check notes: %w", err)
	}
	return UpgradeFindingsPage(vs, string(notes))
}

// UpgradeFindingsPage is the page: an index, then a section per validation
// (its path, Applications, settings, known verdicts, the runs that measured
// them and its why, the finding), then the notes, which must open with a
// "## Notes" heading.
func UpgradeFindingsPage(vs []suites.UpgradeValidation, notes string) (string, error) {
	if !strings.HasPrefix(notes, "## Notes\n") {
		return "", fmt.Errorf("%s must open with \"## Notes\" (docs/upgrade-check.md links its anchor)", upgradeNotesFile)
	}
	var b strings.Builder
	b.WriteString(generated("make docs", "suites/upgrade-check-validate.yaml and "+upgradeNotesFile))
	b.WriteString("# make upgrade-check: what it found on known upgrade paths\n\n" +
		"Each section is a validation of [`suites/upgrade-check-validate.yaml`](../suites/upgrade-check-validate.yaml):\n" +
		"an upgrade path, the Applications taken through it and the settings, each Application's verdict as\n" +
		"measured on a cluster (offline, Kubernetes v1.33.13), the runs that measured it (run ids start with\n" +
		"the date; their reports are kept with the issue's notes), and what those runs showed and why.\n" +
		"`make upgrade-check-validate` runs every one again expecting these verdicts; its latest outcomes are\n" +
		"[upgrade-check-validation.md](upgrade-check-validation.md). How to run the check and read its\n" +
		"verdicts: [upgrade-check.md](upgrade-check.md). What fits no validation: [Notes](#notes).\n\n")
	for _, v := range vs {
		fmt.Fprintf(&b, "- [`%s`](#%s): %s\n", v.Name, headingAnchor(v.Name), v.Title)
	}
	for _, v := range vs {
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n", v.Name, upperFirst(v.Title))
		fmt.Fprintf(&b, "- **path**: %s -> %s\n", v.From, v.To)
		fmt.Fprintf(&b, "- **Applications**: %s\n", applicationsOf(v))
		setting := v.Setting()
		if setting == "" {
			setting = "the defaults"
		} else {
			setting = "`" + setting + "`"
		}
		fmt.Fprintf(&b, "- **settings**: %s\n", setting)
		var known []string
		for _, a := range v.Applications() {
			known = append(known, fmt.Sprintf("%s **%s**", a, v.Expect[a]))
		}
		fmt.Fprintf(&b, "- **known verdicts**: %s\n", strings.Join(known, ", "))
		fmt.Fprintf(&b, "- **measured in**: %s\n", strings.Join(v.Measured, ", "))
		fmt.Fprintf(&b, "- **again**: `make upgrade-check-validate ONLY=%s`\n\n", v.Name)
		b.WriteString(strings.Join(strings.Fields(v.Why), " ") + "\n")
	}
	b.WriteString("\n" + notes)
	return b.String(), nil
}

// applicationsOf says what a validation takes through the upgrade: its
// APPS, linked, or the seed charts.
func applicationsOf(v suites.UpgradeValidation) string {
	switch {
	case v.Apps != "":
		return fmt.Sprintf("[`%s`](../%s)", v.Apps, v.Apps)
	case len(v.Only) > 0:
		return "the seed charts of [`suites/upgrade-check.yaml`](../suites/upgrade-check.yaml), only " + strings.Join(v.Only, ", ")
	}
	return "the seed charts of [`suites/upgrade-check.yaml`](../suites/upgrade-check.yaml)"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var notInAnchor = regexp.MustCompile(`[^a-z0-9 _-]`)

// headingAnchor is the anchor GitHub gives a heading: lower case, what is
// not a letter, digit, space, hyphen or underscore dropped, spaces hyphens.
func headingAnchor(heading string) string {
	return strings.ReplaceAll(notInAnchor.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}
