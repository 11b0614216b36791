package upgrade

import (
	"context"
	"fmt"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/metricsserver"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/pkg/upgrade/cell"
	"github.com/gitops-conformance/suite/pkg/upgrade/fleet"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
)

// Plan is the run's matrix data and code: the scenario upgrade-check with
// one variant per Application on FROM, each upgraded to TO, expected SAFE
// (or as -expect says); a fleet run's one cell (fleet.Plan).
func Plan(s *spec.Spec) (*matrix.Data, runner.Scenarios) {
	sc := matrix.Scenario{Name: spec.Scenario, Component: "applications", ArgoCD: []string{s.From.String()}, UserChart: true, ReplayCommand: s.Command,
		// a cell installs FROM, syncs, deletes, syncs again, upgrades, syncs
		// and deletes: about 6 minutes on the 2-core machine, with a chart
		// that starts in a minute (until reports/ holds measured times)
		Seconds: 360,
		Title:   "a user's Applications through an in-place ArgoCD upgrade",
		Summary: fmt.Sprintf("On a cluster with %s, each Application created on ArgoCD %s through the suite's git server and synced, ArgoCD upgraded in place to %s (%s); a commit on each release acted on by ArgoCD as the sync policy says; the renders compared; deleted.", s.Metrics, s.From, s.To, s.MethodSaid())}
	if s.Metrics.On() {
		sc.Builds = append(sc.Builds, metricsserver.Component+"@"+s.Metrics.Version)
	}
	if s.Fleet {
		return fleet.Plan(s, sc)
	}
	for _, a := range s.Apps {
		sc.Variants = append(sc.Variants, matrix.Variant{Name: a.Name(), Summary: fmt.Sprintf("%s from %s into %s", a.Source.Kind(), a.Source.From, text.OrNone(a.Namespace())),
			ArgoCDUpgrades: []string{s.To.String()}})
	}
	return appcell.Plan(sc, appcell.Known{Want: report.Safe, Why: spec.Unchanged, Expect: s.Expect, ExpectWhy: s.ExpectWhy, Flag: "make upgrade-check -expect"},
		func(c matrix.Cell) step.Scenario { return cell.Feature(s, c) })
}

// Validate is make upgrade-check's whole check of its input, before
// anything is built: the options read (Resolve), the run's selection
// checked as make e2e's is (runner.Validate: FROM asked of the module
// proxy, the source trees offline), and TO asked of the proxy too. mode is
// the run's, detected. The CLI runs it before the test binary is compiled.
func Validate(ctx context.Context, cat *catalog.Catalog, o spec.Options, ro runner.Options, mode images.Mode, cacheDir string) (*spec.Spec, error) {
	s, err := o.Resolve(ctx, cat, appcell.Where{Repo: ro.Repo, CacheDir: cacheDir, Online: mode == images.Online || ro.RegistryMirror != ""})
	if err != nil {
		return nil, &runner.BadInput{Err: err}
	}
	data, _ := Plan(s)
	ro.Scenarios, ro.ArgoCD = spec.Scenario, s.From.String()
	if _, err := runner.Validate(ctx, cat, data, ro); err != nil {
		return nil, err
	}
	if err := runner.ReleaseExists(ctx, cat, s.To, mode); err != nil {
		return nil, &runner.BadInput{Err: fmt.Errorf("TO: %w", err)}
	}
	return s, nil
}
