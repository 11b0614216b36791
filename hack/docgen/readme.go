package main

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
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
