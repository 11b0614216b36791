package spec

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/fixture"
)

// Patch is CHANGE's change of one Application's source, pushed after the
// upgrade in place of the check's own (its marker back, annotated): a
// unified diff as `git diff` writes it, its paths from the source's root
// (the chart's directory, the directory of manifests, the kustomization's).
type Patch struct {
	File string // as the user named it
	Diff string
}

// On is files with the patch applied.
func (p Patch) On(files fixture.Files) fixture.Files {
	return func(ctx context.Context) (map[string]string, error) {
		f, err := files(ctx)
		if err != nil {
			return nil, err
		}
		return p.Apply(ctx, f)
	}
}

// Apply applies the patch to files (appcell.ApplyPatch).
func (p Patch) Apply(ctx context.Context, files map[string]string) (map[string]string, error) {
	out, err := appcell.ApplyPatch(ctx, files, p.Diff)
	if err != nil {
		return nil, fmt.Errorf("CHANGE %s does not apply (git apply): %w", p.File, err)
	}
	return out, nil
}

// readChanges reads CHANGE into s.Changes: a patch file for the only
// Application of APPS, or application=file,... . Each must apply to its
// Application's source.
func (s *Spec) readChanges(ctx context.Context, given string, w appcell.Where) error {
	s.Changes = map[string]Patch{}
	for _, item := range strings.Split(given, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, file, named := strings.Cut(item, "=")
		if !named {
			if len(s.Apps) != 1 {
				return fmt.Errorf("CHANGE %q: APPS holds %d Applications: name the one the patch is for, CHANGE=application=file", item, len(s.Apps))
			}
			name, file = s.Apps[0].Name(), item
		}
		a, ok := s.App(name)
		if !ok && slices.Contains(s.Others, name) {
			continue // another shard's (SHARD)
		}
		if !ok {
			return fmt.Errorf("CHANGE %q: no application %q in APPS", item, name)
		}
		diff, err := os.ReadFile(w.Path(file))
		if err != nil {
			return fmt.Errorf("CHANGE %q: %w", item, appcell.UnwrapPath(err))
		}
		p := Patch{File: file, Diff: string(diff)}
		if _, err := p.Apply(ctx, a.Source.Files); err != nil {
			return fmt.Errorf("application %s: %w", name, err)
		}
		s.Changes[name] = p
	}
	return nil
}
