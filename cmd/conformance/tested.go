package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// testedRangesCommand records every named release's tested range for the
// pages make docs writes; a run reads the range afresh for its report.
func testedRangesCommand(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	cat, data, stdout := c.cat, c.data, c.stdout
	out := fs.String("o", argocd.RecordedFile, "the file to write")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &runner.BadInput{Err: fmt.Errorf("tested-ranges: unexpected argument %q", fs.Arg(0))}
	}
	tags, err := data.ArgoCDReleases(cat)
	if err != nil {
		return err
	}
	ranges := map[string]argocd.Tested{}
	for i, tag := range tags {
		rel, err := cat.Release(tag)
		if err != nil {
			return err
		}
		t, err := argocd.ReadTested(ctx, rel)
		if refusal := sources.Refusal(err); refusal != "" {
			// the proxy refuses the release (v3.3.11), and the source
			// trees leave docs/ out: its cells could not tell
			t = argocd.Tested{Unread: fmt.Sprintf("%s@%s: the module proxy would not serve it (%s), and its source tree here leaves docs/ out", rel.Module(), rel, refusal)}
			fmt.Fprintf(stdout, "[%d/%d] %s could not tell: %s\n", i+1, len(tags), tag, t.Unread)
			ranges[tag] = t
			continue
		}
		if err != nil {
			return fmt.Errorf("tested-ranges: %s left as it was: %s: %w", *out, tag, err)
		}
		ranges[tag] = t
		fmt.Fprintf(stdout, "[%d/%d] %s tested on %s (%s)\n", i+1, len(tags), tag, t, t.Source)
	}
	b, err := argocd.Record(ranges)
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}
