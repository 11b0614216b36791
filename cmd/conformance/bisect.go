package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// maxPatchProbe bounds how far a minor line is probed for patch releases.
const maxPatchProbe = 40

// bisect runs one cell on only the tags it needs and reports where the
// outcome changes. It assumes one change between from and to.
func bisect(ctx context.Context, cat *catalog.Catalog, data *matrix.Data, scenario, variant, from, to string) error {
	if scenario == "" || variant == "" || from == "" || to == "" || strings.Contains(scenario+variant, ",") {
		return usageError{fmt.Errorf("bisect needs one SCENARIO, one VARIANT, FROM and TO (e.g. make bisect SCENARIO=kubeovn-argocd VARIANT=bug FROM=v2.13.3 TO=v2.14.21)")}
	}
	if _, err := data.Plan(cat, matrix.Selection{Scenarios: []string{scenario}, Variants: []string{variant}, ArgoCD: []string{from, to}}); err != nil {
		return usageError{err}
	}
	for _, tag := range []string{from, to} {
		if err := releaseExists(ctx, cat, tag); err != nil {
			return usageError{err}
		}
	}
	tags, err := Releases(ctx, from, to, func(tag string) bool { return releaseExists(ctx, cat, tag) == nil })
	if err != nil {
		return usageError{err}
	}
	fmt.Printf("bisect %s/%s over %d releases: %s\n", scenario, variant, len(tags), strings.Join(tags, " "))
	// absolute: each step's go test runs in ./suites
	dir, err := filepath.Abs(filepath.Join("reports", "bisect-"+time.Now().UTC().Format("20060102-150405")))
	if err != nil {
		return err
	}
	results := map[string]report.Outcome{}
	eval := func(tag string) (report.Outcome, error) {
		if o, ok := results[tag]; ok {
			return o, nil
		}
		o, err := runCell(ctx, scenario, variant, tag, filepath.Join(dir, tag))
		if err != nil {
			return "", err
		}
		fmt.Printf("bisect: %s %s/%s -> %s\n", tag, scenario, variant, o)
		results[tag] = o
		return o, nil
	}
	lo, hi := 0, len(tags)-1
	first, err := eval(tags[lo])
	if err != nil {
		return err
	}
	last, err := eval(tags[hi])
	if err != nil {
		return err
	}
	var verdict string
	if first == last {
		verdict = fmt.Sprintf("no change: %s on %s and on %s", first, tags[lo], tags[hi])
	} else {
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			o, err := eval(tags[mid])
			if err != nil {
				return err
			}
			if o == first {
				lo = mid
			} else {
				hi = mid
			}
		}
		verdict = fmt.Sprintf("last %s: %s; first %s: %s", first, tags[lo], results[tags[hi]], tags[hi])
	}
	out, _ := json.MarshalIndent(map[string]any{"scenario": scenario, "variant": variant, "from": from, "to": to,
		"releases": tags, "runs": results, "verdict": verdict}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "bisect.json"), append(out, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("bisect %s/%s: %s (%d of %d releases run; %s)\n", scenario, variant, verdict, len(results), len(tags), filepath.Join(dir, "bisect.json"))
	return nil
}

// Releases lists the release tags from..to (inclusive), in order, probing each
// minor line's patch releases with exists (the proxy's version lists are partial).
func Releases(ctx context.Context, from, to string, exists func(string) bool) ([]string, error) {
	f, t := matrix.Numbers(from), matrix.Numbers(to)
	if f[0] != t[0] || matrix.CompareTags(from, to) >= 0 {
		return nil, fmt.Errorf("bisect range %s..%s: FROM must be before TO, same major version", from, to)
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

// runCell runs one cell through the e2e suite (keeping the cluster for the
// next step) and reads its outcome from the report.
func runCell(ctx context.Context, scenario, variant, tag, reports string) (report.Outcome, error) {
	cmd := exec.CommandContext(ctx, "go", "test", "-tags", "e2e", "-count=1", "-v", "-timeout", "60m", "./suites", "-run", "TestMatrix",
		"-args", "-scenario", scenario, "-variant", variant, "-argocd", tag, "-keep", "-reports", reports,
		"-command", fmt.Sprintf("make bisect step: SCENARIO=%s VARIANT=%s ARGOCD=%s", scenario, variant, tag))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	_ = cmd.Run() // an unexpected outcome fails the test; the report still has it
	r, err := report.Load(filepath.Join(reports, "latest", "report.json"))
	if err != nil {
		return "", fmt.Errorf("bisect step %s: %w", tag, err)
	}
	if len(r.Cells) != 1 {
		return "", fmt.Errorf("bisect step %s: expected one cell in the report, found %d", tag, len(r.Cells))
	}
	return r.Cells[0].Outcome, nil
}
