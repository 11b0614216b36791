package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// An upstream reference is a '#' and three or more digits (an issue or pull
// request; the project's own issues have two digits) at the start of a word
// or after a word of its own (argo-cd#27875). TestUpstreamReferencesNameTheirRepository
// reads docs/*.md, suites/**/*.yaml and scenarios/*/README.md line by line
// (a table row is one line) and takes a reference as naming its repository
// when it is one of:
//
//   - owner/repo#N (argoproj/argo-cd#27875);
//   - the text of a markdown link to github.com/owner/repo/issues/N or
//     /pull/N, the same N ([argo-cd#27875](https://github.com/argoproj/argo-cd/issues/27875));
//   - a bare #N (nothing of a word before the '#') after an owner/repo#M or
//     such a link earlier on the same line: the repository the line named.
//
// Anything else (argo-cd#27875 without its owner, a bare #N on a line that
// names no repository before it) is reported with its file and line. The
// rule does not check that the repository a bare #N borrows is its own.
var (
	upstreamRef  = regexp.MustCompile(`([A-Za-z0-9_.-]*)#([0-9]{3,})\b`)
	ownerRepoRef = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+#[0-9]+`)
	githubLink   = regexp.MustCompile(`\[([^\]]*)\]\(https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/(?:issues|pull)/([0-9]+)[^)]*\)`)
	githubURL    = regexp.MustCompile(`github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/(?:issues|pull)/[0-9]+`)
	ownerBefore  = regexp.MustCompile(`[A-Za-z0-9][A-Za-z0-9_.-]*/$`)
)

// unnamedReferences returns each reference of line that does not name its
// repository, as the rule above says.
func unnamedReferences(line string) []string {
	linked := map[int]bool{} // start of a reference that is its link's text
	for _, m := range githubLink.FindAllStringSubmatchIndex(line, -1) {
		text, num := line[m[2]:m[3]], line[m[4]:m[5]]
		for _, r := range upstreamRef.FindAllStringSubmatchIndex(text, -1) {
			if text[r[4]:r[5]] == num {
				linked[m[2]+r[0]] = true
			}
		}
	}
	var bad []string
	for _, r := range upstreamRef.FindAllStringSubmatchIndex(line, -1) {
		start, word := r[0], line[r[2]:r[3]]
		if start > 0 && strings.ContainsAny(line[start-1:start], "&/") && word == "" {
			continue // an HTML entity (&#123;) or a path's fragment, not a reference
		}
		before := line[:start]
		switch {
		case linked[start]:
		case word != "" && ownerBefore.MatchString(before): // owner/ + repo#N
		case word == "" && (ownerRepoRef.MatchString(before) || githubURL.MatchString(before)):
		default:
			bad = append(bad, line[r[0]:r[1]])
		}
	}
	return bad
}

func TestUnnamedReferences(t *testing.T) {
	for line, want := range map[string]string{
		"argoproj/argo-cd#27875 and kyverno/kyverno#14169":                                      "",
		"[argo-cd#27875](https://github.com/argoproj/argo-cd/issues/27875), reverted in #28692": "",
		"argoproj/argo-cd#28227, cherry-picked as #28331 and #28332":                            "",
		"argo-cd#27875 (the issue)":                                                             "argo-cd#27875",
		"the fix #28227, in v3.5.1":                                                             "#28227",
		"#28227 before argoproj/argo-cd#27875":                                                  "#28227",
		"[argo-cd#27875](https://github.com/argoproj/argo-cd/issues/27527)":                     "argo-cd#27875",
		"the project's own (#73), v3.4.2, run 20261128-090008, &#160;":                          "",
	} {
		if got := strings.Join(unnamedReferences(line), " "); got != want {
			t.Errorf("unnamedReferences(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestUpstreamReferencesNameTheirRepository: every upstream issue or pull
// request cited in docs/, suites/ and the scenarios' READMEs names its
// repository (the rule above unnamedReferences).
func TestUpstreamReferencesNameTheirRepository(t *testing.T) {
	root := filepath.Join("..", "..")
	var files []string
	for _, pattern := range []string{"docs/*.md", "scenarios/*/README.md"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	err := filepath.WalkDir(filepath.Join(root, "suites"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".yaml") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	if len(files) < 10 {
		t.Fatalf("only %d files found under %s", len(files), root)
	}
	var bad []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for i, line := range strings.Split(string(b), "\n") {
			for _, r := range unnamedReferences(line) {
				bad = append(bad, fmt.Sprintf("%s:%d: %s", rel, i+1, r))
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d upstream references do not name their repository (write owner/repo#N, or a bare #N after an owner/repo# on its line):\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
