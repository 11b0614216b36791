package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// maxPatchProbe bounds how far a minor line is probed for patch releases.
const maxPatchProbe = 40

// Releases lists the release tags from..to (inclusive), in order, probing each
// minor line's patch releases with exists (the proxy's version lists are partial).
func Releases(from, to string, exists func(string) bool) ([]string, error) {
	f, t := matrix.Numbers(from), matrix.Numbers(to)
	if f[0] != t[0] || matrix.CompareTags(from, to) >= 0 {
		return nil, fmt.Errorf("range %s..%s: FROM must be before TO, same major version", from, to)
	}
	var tags []string
	for minor := f[1]; minor <= t[1]; minor++ {
		start, end := 0, maxPatchProbe
		if minor == f[1] {
			start = f[2]
		}
		if minor == t[1] {
			end = t[2]
		}
		misses := 0
		for patch := start; patch <= end && misses < 3; patch++ {
			tag := fmt.Sprintf("v%d.%d.%d", f[0], minor, patch)
			if tag == from || tag == to || exists(tag) {
				tags = append(tags, tag)
				misses = 0
			} else if minor != t[1] {
				misses++
			}
		}
	}
	slices.SortFunc(tags, matrix.CompareTags)
	return tags, nil
}

// Search is the result of a bisect or a sweep over releases.
type Search struct {
	Scenario string                    `json:"scenario"`
	Variant  string                    `json:"variant"`
	Releases []string                  `json:"releases"`
	Sweep    bool                      `json:"sweep"`
	Runs     map[string]report.Outcome `json:"runs"`
	// Changes are the adjacent pairs of releases that were both run and differ.
	Changes []Change `json:"changes"`
	// NotRun are the releases the search did not run: a change hidden
	// between two run releases with one outcome (an island) is not seen.
	NotRun  []string `json:"not_run"`
	Verdict string   `json:"verdict"`
}

// Change is an outcome flip between two consecutive releases that were run.
type Change struct {
	Last  string         `json:"last"`
	From  report.Outcome `json:"from"`
	First string         `json:"first"`
	To    report.Outcome `json:"to"`
}

// Find runs eval on releases (in order) and reports where the outcome
// changes. A sweep runs every release and finds every change. A bisect runs
// the two ends and then halves the range between two differing outcomes: it
// finds one boundary per differing pair, and says which releases it did not
// run, since an island between two equal outcomes is invisible to it (the
// kyverno-argocd hold exists on v2.14.3 only: v2.14.2 and v2.14.4 agree).
func Find(scenario, variant string, releases []string, sweep bool, eval func(tag string) (report.Outcome, error)) (*Search, error) {
	s := &Search{Scenario: scenario, Variant: variant, Releases: releases, Sweep: sweep, Runs: map[string]report.Outcome{}}
	run := func(i int) (report.Outcome, error) {
		tag := releases[i]
		if o, ok := s.Runs[tag]; ok {
			return o, nil
		}
		o, err := eval(tag)
		if err != nil {
			return "", fmt.Errorf("run %s on %s: %w", scenario+"/"+variant, tag, err)
		}
		s.Runs[tag] = o
		return o, nil
	}
	var err error
	if sweep {
		for i := range releases {
			if _, err = run(i); err != nil {
				break
			}
		}
	} else {
		var halve func(lo, hi int) error
		halve = func(lo, hi int) error {
			a, err := run(lo)
			if err != nil {
				return err
			}
			b, err := run(hi)
			if err != nil || a == b || hi-lo <= 1 {
				return err
			}
			mid := (lo + hi) / 2
			if err := halve(lo, mid); err != nil {
				return err
			}
			return halve(mid, hi)
		}
		err = halve(0, len(releases)-1)
	}
	s.settle()
	if err != nil {
		// what was run stands, and the verdict says the search did not finish
		s.Verdict = "incomplete (" + err.Error() + "): " + s.Verdict
	}
	return s, err
}

// settle derives the changes, the releases not run and the verdict from Runs.
func (s *Search) settle() {
	var prev string
	for _, tag := range s.Releases {
		o, ok := s.Runs[tag]
		if !ok {
			s.NotRun = append(s.NotRun, tag)
			continue
		}
		if prev != "" && s.Runs[prev] != o {
			s.Changes = append(s.Changes, Change{Last: prev, From: s.Runs[prev], First: tag, To: o})
		}
		prev = tag
	}
	var parts []string
	for _, c := range s.Changes {
		parts = append(parts, fmt.Sprintf("%s on %s, %s from %s", c.From, c.Last, c.To, c.First))
	}
	if len(s.Changes) == 0 && len(s.Runs) > 0 {
		parts = append(parts, "no change among the releases run")
	}
	if len(s.NotRun) > 0 {
		parts = append(parts, fmt.Sprintf("not run: %s; a change between two run releases with the same outcome (an island) would be missed: `make sweep` runs every release",
			strings.Join(s.NotRun, " ")))
	} else {
		parts = append(parts, "every release in the range was run")
	}
	s.Verdict = strings.Join(parts, "; ")
}

// Write saves the search as bisect.json in dir.
func (s *Search) Write(dir string) error {
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "bisect.json"), append(out, '\n'), 0o644)
}

// Bisect plans the search of one scenario/variant over the releases from..to
// (every one with o.Sweep) and runs each step as a cell of this run, on this
// run's cluster, through exec. The steps' cells go into the run's report.
func (r *Runner) Bisect(ctx context.Context, o Options, exec Exec) (*Search, error) {
	sweep := o.Sweep
	if len(r.Cells) != 2 || strings.Contains(o.Scenarios+o.Variants, ",") || o.Scenarios == "" || o.Variants == "" {
		return nil, &BadInput{fmt.Errorf("bisect needs one SCENARIO, one VARIANT (one COMPONENT_VERSION where the variant has several), FROM and TO (e.g. make bisect SCENARIO=kubeovn-argocd VARIANT=bug FROM=v2.13.3 TO=v2.14.21)")}
	}
	releases, err := Releases(o.From, o.To, func(tag string) bool { return ReleaseExists(ctx, r.Run.Catalog, tag) == nil })
	if err != nil {
		return nil, &BadInput{err}
	}
	verb := "bisect"
	if sweep {
		verb = "sweep"
	}
	r.Run.Logf("%s %s/%s over %d releases: %s", verb, o.Scenarios, o.Variants, len(releases), strings.Join(releases, " "))
	template := r.Cells[0]
	s, err := Find(o.Scenarios, o.Variants, releases, sweep, func(tag string) (report.Outcome, error) {
		c := template
		c.ArgoCD = tag
		rc, ok := r.Cell(ctx, c, exec)
		if !ok {
			return "", context.Cause(ctx)
		}
		r.Run.Logf("%s: %s %s/%s -> %s", verb, tag, o.Scenarios, o.Variants, rc.Outcome)
		if rc.Outcome == report.Error {
			return "", fmt.Errorf("ERROR: %s", rc.Reason)
		}
		return rc.Outcome, nil
	})
	if s != nil {
		r.Run.Logf("%s %s/%s: %s (%d of %d releases run; %s)", verb, o.Scenarios, o.Variants, s.Verdict, len(s.Runs), len(releases), filepath.Join(r.Dir, "bisect.json"))
		if werr := s.Write(r.Dir); werr != nil && err == nil {
			err = werr
		}
	}
	return s, err
}
