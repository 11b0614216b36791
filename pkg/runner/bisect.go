package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/bisect"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/releases"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// goModNeeded says whether a build of rel needs the go.mod the module proxy
// serves: only an offline build from the module zip does. A release built
// from its source tree reads the tree's, one pulled online none; so a
// release the proxy lists but whose go.mod it refuses (v3.4.1, v3.3.11
// here) is had all the same.
func goModNeeded(rel catalog.Release, mode images.Mode) bool {
	return mode == images.Offline && !rel.FromSources()
}

// treeProvided says whether a release can be had in the run's mode
// (releases.Obtainable); its reason names no tag, so a range's dozens of
// such releases share it.
func (r *Runner) treeProvided(rel catalog.Release) error {
	_, err := releases.Obtainable(r.Run.Catalog, rel, r.Run.Mode, r.Run.Repo)
	return err
}

// Bisect plans the search of one scenario/variant over the releases from..to
// (every one with o.Sweep) and runs each step as a cell of this run, on this
// run's cluster, through exec. The steps' cells go into the run's report.
func (r *Runner) Bisect(ctx context.Context, o Options, exec Exec) (*bisect.Search, error) {
	sweep := o.Sweep
	if len(r.Cells) != 2 || strings.Contains(o.Scenarios+o.Variants, ",") || o.Scenarios == "" || o.Variants == "" {
		return nil, &BadInput{fmt.Errorf("bisect needs one SCENARIO, one VARIANT (one COMPONENT_VERSION and one KUBERNETES where the variant has several), FROM and TO (e.g. make bisect SCENARIO=kubeovn-argocd VARIANT=bug FROM=v2.13.3 TO=v2.14.21; across a major too: FROM=v2.14.21 TO=v3.5.1)")}
	}
	cat := r.Run.Catalog
	from, err := cat.Release(o.From)
	if err != nil {
		return nil, &BadInput{err}
	}
	to, err := cat.Release(o.To)
	if err != nil {
		return nil, &BadInput{err}
	}
	rels, unobtainable, err := bisect.Releases(cat, from, to, func(rel catalog.Release) error {
		if err := bisect.Probe(ctx, rel); err != nil && (!errors.Is(err, sources.ErrNoGoMod) || goModNeeded(rel, r.Run.Mode)) {
			return err
		}
		return r.treeProvided(rel)
	})
	if err != nil {
		return nil, &BadInput{err}
	}
	// the search works on the tags, its report's words; each maps back to its release
	byTag := map[string]catalog.Release{}
	releases := make([]string, len(rels))
	for i, rel := range rels {
		releases[i], byTag[rel.String()] = rel.String(), rel
	}
	verb := "bisect"
	if sweep {
		verb = "sweep"
	}
	r.Run.Logf("%s %s/%s over %d releases: %s", verb, o.Scenarios, o.Variants, len(releases), strings.Join(releases, " "))
	template := r.Cells[0]
	var groups *bisect.Grouping
	if !sweep {
		groups = bisect.EngineGrouping(ctx, byTag)
	}
	if len(unobtainable) > 0 {
		r.Run.Logf("%s: %d tag(s) of the range left out, not obtainable here (the verdict says which and why)", verb, len(unobtainable))
	}
	s, err := bisect.Find(o.Scenarios, o.Variants, releases, sweep, groups, func(tag string) (report.Outcome, error) {
		c := template
		c.ArgoCD = byTag[tag]
		// a release whose images do not build here is left out, not an
		// error of the search (v3.0.0: a module the proxy refuses)
		if _, err := r.Run.BuildArgoCD(ctx, c.ArgoCD); err != nil {
			if ctx.Err() != nil {
				return "", context.Cause(ctx)
			}
			why := images.Cause(err)
			r.Run.Logf("%s: %s cannot be built here, left out: %s", verb, tag, why)
			return "", fmt.Errorf("%w: %s", bisect.ErrUnbuildable, why)
		}
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
	if s != nil && len(unobtainable) > 0 {
		if s.Unobtainable == nil {
			s.Unobtainable = map[string]string{}
		}
		maps.Copy(s.Unobtainable, unobtainable) // with those Find left out
		s.Settle()
	}
	if s != nil {
		r.Run.Logf("%s %s/%s: %s (%d of %d releases run; %s)", verb, o.Scenarios, o.Variants, s.Verdict, len(s.Runs), len(releases), filepath.Join(r.Dir, "bisect.json"))
		if werr := s.Write(r.Dir); werr != nil && err == nil {
			err = werr
		}
	}
	return s, err
}
