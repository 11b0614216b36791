package main

import (
	"fmt"
	"strings"

	"github.com/gitops-conformance/suite/pkg/upgrade/changes"
)

// guideURL is where a line of ArgoCD's upgrade guides is read at the tag
// the catalog's lines were read at (changes.Change.Guide).
const guideURL = "https://github.com/argoproj/argo-cd/blob/v3.6.1/docs/operator-manual/upgrading/"

// UpgradeChanges renders docs/upgrade-check-changes.md from the catalog
// of behaviour changes (pkg/upgrade/changes): what a verdict's
// "explained:" names, one section per change.
func UpgradeChanges() string {
	var b strings.Builder
	b.WriteString(generated("make docs", "pkg/upgrade/changes"))
	b.WriteString("# make upgrade-check: the behaviour changes it names\n\n" +
		"A CHANGED or BROKEN verdict names each difference it found by the change of ArgoCD that makes it, where\n" +
		"the upgrade crosses that change's release (`explained: id (release: what), kept as before by ...`), and\n" +
		"lists first what no change explains (`unexplained: ...`): those are the rows a team reads. A BROKEN\n" +
		"verdict explained is still BROKEN: the Application no longer does what it did, and the entry says what\n" +
		"to set or to change.\n\n")
	b.WriteString("| id | since | impact | what changed |\n|---|---|---|---|\n")
	for _, c := range changes.Catalog {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", c.ID, c.ID, c.Since, c.Impact, c.Title)
	}
	for _, c := range changes.Catalog {
		file, line, _ := strings.Cut(c.Guide, ":")
		fmt.Fprintf(&b, "\n## %s\n\n%s: %s\n\n", c.ID, c.Since, c.Detail)
		fmt.Fprintf(&b, "- impact: %s\n- the upgrade guide: [%s](%s%s?plain=1#L%s)\n", c.Impact, c.Guide, guideURL, file, line)
		if c.Ref != "" {
			fmt.Fprintf(&b, "- upstream: %s\n", c.Ref)
		}
		if c.Restore != "" {
			fmt.Fprintf(&b, "- to keep the old behaviour: %s\n", c.Restore)
		}
		if c.Adapt != "" {
			fmt.Fprintf(&b, "- or adapt: %s\n", c.Adapt)
		}
	}
	return b.String()
}
