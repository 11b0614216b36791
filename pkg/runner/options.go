package runner

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/releases"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// MaxClusters bounds -clusters: each kind cluster with ArgoCD and a
// component holds 1.5-3 GiB and a share of the CPU.
const MaxClusters = 8

// Options is what a user asks of a run: the one flag set the CLI and the
// e2e test binary share.
type Options struct {
	Scenarios string // comma-separated; empty: all
	Variants  string
	ArgoCD    string // tags; empty: each scenario's axis
	Versions  string // component versions; replace the variants' own
	// Kubernetes versions (or minors) of the catalog's axis; empty: each
	// scenario's axis.
	Kubernetes string
	// Tier narrows the axes not named: "quick" (make e2e's default) each
	// scenario's quick tier, "full" (or empty) every axis.
	Tier string
	// FirstKubernetes is set by a parallel run for each shard: the version of
	// the cluster it makes first (the shards spread over the axis).
	FirstKubernetes string
	Mode            string // auto, online, offline
	// RegistryMirror (REGISTRY_MIRROR=host:port): online, the nodes pull the
	// upstream registries' names through it.
	RegistryMirror string
	// NodeImage: "" the mode's (online kindest/node, offline the suite's
	// build), "built" the suite's build in either mode, or an image name.
	NodeImage string
	// Deliver is how offline builds reach the nodes: "load" (kind load) or
	// "registry" (pushed once into the suite's registry, pulled by the nodes).
	Deliver string
	Repeat  int
	Keep    bool
	Cluster string
	Reports string // reports directory; empty: <repo>/reports
	// Costs is the reports directory the plan's estimate reads measured
	// cell times from; empty: Reports. A run that writes its report
	// elsewhere (make bench-quick's, each in a directory of its own) is
	// still estimated from the times measured so far.
	Costs    string
	Command  string // the command line that started the run, for the report
	From, To string // bisect's range
	Sweep    bool   // bisect runs every release of the range
	// Unmeasured is what a cell no measured expectation covers does to the
	// run's exit status: "ok" (listed, not a failure) or "fail".
	Unmeasured string
	// Clusters is how many kind clusters run the cells at once (PARALLEL=N):
	// one process per cluster, each taking the next cell from the run's queue.
	Clusters int
	// Cells, when set, keeps only the planned cells with these IDs
	// (comma-separated, as the report names them): a user's "run these
	// again".
	Cells string
	// SharedRegistry is set by a parallel run for its shards: the registry
	// container they deliver through and leave running (DELIVER=registry).
	SharedRegistry string
	// Queue is set by a parallel run for its shards: the directory of the
	// queue they take the plan's cells from, one at a time (see schedule.Queue).
	Queue string
	// Repo is the suite's checkout (no flag: the caller knows it); a
	// relative ARGOCD_SOURCES is taken from it.
	Repo string
}

// Register defines the options' flags on fs.
func (o *Options) Register(fs *flag.FlagSet) {
	fs.StringVar(&o.Scenarios, "scenario", "", "scenarios, comma-separated (default: all)")
	fs.StringVar(&o.Variants, "variant", "", "variants, comma-separated (default: all)")
	fs.StringVar(&o.ArgoCD, "argocd", "", "ArgoCD tags, comma-separated (default: each scenario's axis)")
	fs.StringVar(&o.Versions, "version", "", "component versions, comma-separated (replace the variants')")
	fs.StringVar(&o.Kubernetes, "kubernetes", "", "Kubernetes versions (or minors) of the catalog's axis, comma-separated (default: each scenario's axis)")
	fs.StringVar(&o.Tier, "tier", matrix.TierFull, "the axes not named: quick (each scenario's quick tier, suites/matrix.yaml) or full (every axis)")
	fs.StringVar(&o.FirstKubernetes, "first-kubernetes", "", "the Kubernetes version of the first cluster (set by a parallel run for its clusters)")
	fs.StringVar(&o.Mode, "mode", "auto", "image source: auto, online or offline")
	fs.StringVar(&o.RegistryMirror, "registry-mirror", "", "host:port of a registry mirror the nodes pull docker.io, quay.io, ghcr.io, gcr.io, registry.k8s.io, reg.kyverno.io and public.ecr.aws through (online)")
	fs.StringVar(&o.NodeImage, "node-image", "", `node image: "" the mode's, "built" the suite's own build, or an image name`)
	fs.StringVar(&o.Deliver, "deliver", "load", "offline: how built images reach the nodes: load (kind load) or registry (the suite's registry, pulled by the nodes)")
	fs.IntVar(&o.Repeat, "repeat", 1, "run each cell N times and report k/N")
	fs.BoolVar(&o.Keep, "keep", false, "keep the cluster at the end")
	fs.StringVar(&o.Cluster, "cluster", "gitops-conformance", "kind cluster name")
	fs.StringVar(&o.Reports, "reports", "", "reports directory (default: <repo>/reports)")
	fs.StringVar(&o.Costs, "costs", "", "the reports directory the plan's estimate reads measured cell times from (default: -reports)")
	fs.StringVar(&o.Command, "command", "", "the command line that started the run, for the report")
	fs.StringVar(&o.From, "from", "", "bisect: first ArgoCD tag; make upgrade-check: the release the Applications start on (FROM)")
	fs.StringVar(&o.To, "to", "", "bisect: last ArgoCD tag; make upgrade-check: the release upgraded to in place (TO)")
	fs.BoolVar(&o.Sweep, "sweep", false, "bisect: run every release from..to, not only the ones a bisection needs")
	fs.StringVar(&o.Unmeasured, "unmeasured", "ok", "a cell with no measured expectation: ok (listed in the report) or fail (fails the run)")
	fs.IntVar(&o.Clusters, "clusters", 1, "run the cells on N kind clusters at once (one process each, one report at the end)")
	fs.StringVar(&o.Cells, "cells", "", "only the planned cells with these IDs, comma-separated (as the report names them)")
	fs.StringVar(&o.Queue, "queue", "", "take the plan's cells one at a time from this queue directory (set by a parallel run for its clusters)")
	fs.StringVar(&o.SharedRegistry, "shared-registry", "", "deliver=registry: a running registry container to deliver through and leave running (set by a parallel run for its clusters)")
}

// Selection is the cells the options select.
func (o *Options) Selection() matrix.Selection {
	return matrix.Selection{Scenarios: matrix.ParseList(o.Scenarios), Variants: matrix.ParseList(o.Variants),
		ArgoCD: matrix.ParseList(o.ArgoCD), Versions: matrix.ParseList(o.Versions), Kubernetes: matrix.ParseList(o.Kubernetes), Tier: o.Tier}
}

// BadInput is a selection that names nothing valid: one line, exit status 2,
// nothing started.
type BadInput struct{ Err error }

func (e *BadInput) Error() string { return e.Err.Error() }
func (e *BadInput) Unwrap() error { return e.Err }

// IsBadInput reports whether err is bad input.
func IsBadInput(err error) bool {
	var b *BadInput
	return errors.As(err, &b)
}

// Validate checks the options against the catalog and the matrix and returns
// the planned cells. It is the one place a selection is checked: the CLI's
// `check` and the test binary both call it. Every ArgoCD tag named is asked
// of the module proxy once (a tag that parses may still not exist).
func Validate(ctx context.Context, cat *catalog.Catalog, data *matrix.Data, o Options) ([]matrix.Cell, error) {
	mode, err := images.ParseMode(o.Mode)
	if err != nil {
		return nil, &BadInput{err}
	}
	if o.Unmeasured != "" && o.Unmeasured != "ok" && o.Unmeasured != "fail" {
		return nil, &BadInput{fmt.Errorf("unmeasured %q: must be ok or fail", o.Unmeasured)}
	}
	if o.Deliver != "" && o.Deliver != "load" && o.Deliver != "registry" {
		return nil, &BadInput{fmt.Errorf("deliver %q is not one of load, registry", o.Deliver)}
	}
	if o.Deliver == "registry" && mode == images.Online {
		return nil, &BadInput{errors.New("deliver=registry is for offline builds; MODE=online pulls the upstream images")}
	}
	if o.Deliver == "registry" && o.RegistryMirror != "" {
		return nil, &BadInput{fmt.Errorf("deliver=registry is for offline builds; with REGISTRY_MIRROR=%s the images come from the mirror", o.RegistryMirror)}
	}
	if o.Repeat < 1 {
		return nil, &BadInput{fmt.Errorf("repeat %d: must be 1 or more", o.Repeat)}
	}
	if o.Clusters < 1 || o.Clusters > MaxClusters {
		return nil, &BadInput{fmt.Errorf("clusters %d: must be 1 to %d", o.Clusters, MaxClusters)}
	}
	sel := o.Selection()
	for _, v := range sel.Kubernetes {
		if err := kubeObtainable(ctx, cat, v, mode, o.Repo); err != nil {
			return nil, &BadInput{err}
		}
	}
	cells, err := data.Plan(cat, sel)
	if err != nil {
		return nil, &BadInput{err}
	}
	if cells, err = only(cells, matrix.ParseList(o.Cells)); err != nil {
		return nil, &BadInput{err}
	}
	if len(cells) == 0 {
		return nil, &BadInput{fmt.Errorf("the selection has no cells (scenarios: %s)", strings.Join(data.Names(), ", "))}
	}
	if len(sel.ArgoCD) > 0 { // named by the user: asked of the proxy once each (the axis' are known)
		asked := map[catalog.Release]bool{}
		for _, c := range cells {
			if !asked[c.ArgoCD] {
				asked[c.ArgoCD] = true
				if err := ReleaseExists(ctx, cat, c.ArgoCD, mode); err != nil {
					return nil, &BadInput{err}
				}
			}
		}
	}
	asked := map[string]bool{}
	for _, c := range cells { // a component release the catalog does not pin: asked of the proxy once each
		if v := c.ComponentVersion; v != "" && !c.Scenario.UserChart && !matrix.Pinned(cat, c.Scenario, v) && !asked[c.Scenario.Component+"@"+v] {
			asked[c.Scenario.Component+"@"+v] = true
			if err := ComponentReleaseExists(ctx, cat, c.Scenario.Component, v, mode); err != nil {
				return nil, &BadInput{err}
			}
		}
	}
	if _, err := Mirror(ctx, o.RegistryMirror, mode); err != nil {
		return nil, &BadInput{err}
	}
	if err := sourcesProvided(ctx, cat, cells, sel.ArgoCD, mode, o.RegistryMirror, o.Repo, images.HTTPProbe); err != nil {
		return nil, &BadInput{err}
	}
	return cells, nil
}

// kubeObtainable refuses a Kubernetes version the catalog has no entry for
// with the reason that matters: offline (or auto), whether its node image
// could be built at all (the module proxy must serve every staging module
// at the matching version: the one line names those missing); else that
// the catalog pins no parts or online image for it.
func kubeObtainable(ctx context.Context, cat *catalog.Catalog, version string, mode images.Mode, repo string) error {
	_, err := cat.Kubernetes.Get(version)
	var unknown *catalog.UnknownKube
	if !errors.As(err, &unknown) || mode == images.Online || !strings.HasPrefix(version, "v") || strings.Count(version, ".") != 2 {
		return err
	}
	if serr := images.StagingComplete(ctx, repo, version); serr != nil {
		return serr
	}
	return err
}

// sourcesProvided checks, before anything starts, that every ArgoCD release
// of the cells (upgrade targets too) can be had in this mode
// (releases.Obtainable: offline, a release from the catalog's
// argocd.sources.from on needs its source tree where ARGOCD_SOURCES
// points). A release the user named (in named) that cannot is refused; a
// cell whose releases come from its tier (not named) is marked to be
// SKIPPED with the same line, and the run goes on with the others. Online
// (a forced mode, a registry mirror, or auto finding the registries) the
// upstream images serve and nothing is checked. Nothing is extracted.
func sourcesProvided(ctx context.Context, cat *catalog.Catalog, cells []matrix.Cell, named []string, mode images.Mode, mirror, repo string, probe images.Probe) error {
	var need []catalog.Release
	for _, c := range cells {
		for _, rel := range append([]catalog.Release{c.ArgoCD}, c.Upgrades...) {
			if rel.FromSources() && !slices.Contains(need, rel) {
				need = append(need, rel)
			}
		}
	}
	if len(need) == 0 || mode == images.Online || mirror != "" {
		return nil
	}
	if mode == images.Auto {
		if m, _ := images.Detect(ctx, mode, probe); m == images.Online {
			return nil
		}
	}
	missing := map[catalog.Release]string{}
	for _, rel := range need {
		if _, err := releases.Obtainable(cat, rel, images.Offline, repo); err != nil {
			why := fmt.Sprintf("argocd %q: %s", rel, err)
			if slices.Contains(named, rel.String()) {
				return errors.New(why)
			}
			missing[rel] = why
		}
	}
	for i, c := range cells {
		for _, rel := range append([]catalog.Release{c.ArgoCD}, c.Upgrades...) {
			if why, ok := missing[rel]; ok && cells[i].Skip == "" {
				cells[i].Skip = why
			}
		}
	}
	return nil
}

// ComponentReleaseExists asks the module proxy about a component release
// the catalog does not pin: an error when it says the version was never
// published, and offline when it will not serve a release built from its
// module (a component built from a source tree the user names, Kargo, is
// the tree's to say: its cells are SKIPPED without one).
func ComponentReleaseExists(ctx context.Context, cat *catalog.Catalog, component, version string, mode images.Mode) error {
	comp, err := cat.Component(component)
	if err != nil || comp.Module == "" {
		return err
	}
	if why := comp.UnobtainableWhy(version, mode == images.Offline); why != "" {
		return fmt.Errorf("%s version %q: not obtainable here: %s; make releases lists what this mode can run", component, version, why)
	}
	_, err = sources.ModuleInfo(ctx, comp.Module, version)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	msg := strings.TrimSpace(strings.TrimPrefix(shell.LastLine(err.Error()), "server response:"))
	if sources.NotPublished(err) {
		return fmt.Errorf("%s version %q: no such release of %s (%s); the catalog pins %s", component, version, comp.Module, msg, strings.Join(comp.Versions, ", "))
	}
	if refused := sources.Refusal(err); refused != "" && !comp.FromTree() {
		// its files come from that module zip in both modes (catalog.yaml)
		return fmt.Errorf("%s version %q: the module proxy refuses %s@%s (%s), and the suite reads its files from that module zip in both modes; the catalog pins %s", component, version, comp.Module, version, msg, strings.Join(comp.Versions, ", "))
	}
	if mode == images.Offline && !comp.FromTree() {
		return fmt.Errorf("%s version %q: offline it builds from %s@%s, which the module proxy does not serve (%s); make releases lists what this mode can run", component, version, comp.Module, version, msg)
	}
	return nil
}

// only keeps the cells whose IDs are listed, in the plan's order (all of
// them when none is).
func only(cells []matrix.Cell, ids []string) ([]matrix.Cell, error) {
	if len(ids) == 0 {
		return cells, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	found := map[string]bool{}
	var kept []matrix.Cell
	for _, c := range cells {
		id := c.Report().ID()
		// an ID without its Kubernetes version (a report from before the
		// axis) names the cell on every version of the plan
		short, _, _ := strings.Cut(id, report.KubeIDPrefix)
		for _, w := range []string{id, short} {
			if want[w] {
				kept = append(kept, c)
				found[w] = true
				break
			}
		}
	}
	for _, id := range ids {
		if !found[id] {
			return nil, fmt.Errorf("cell %q is not in the selection's plan (make list shows the cells)", id)
		}
	}
	return kept, nil
}

// Mirror checks REGISTRY_MIRROR: well-formed, answering, and for a run whose
// images are pulled (MODE=online, or auto, which a mirror makes online). It
// returns nil when none is named.
func Mirror(ctx context.Context, s string, mode images.Mode) (*registry.Mirror, error) {
	if s == "" {
		return nil, nil
	}
	m, err := registry.ParseMirror(s)
	if err != nil {
		return nil, err
	}
	if mode == images.Offline {
		return nil, fmt.Errorf("registry mirror %q: MODE=offline builds and loads every image; a mirror is for MODE=online (or auto)", m)
	}
	if err := m.Probe(ctx); err != nil {
		return nil, err
	}
	return &m, nil
}

// ReleaseExists asks the module proxy whether an ArgoCD release was
// published, and can be had in mode (goModNeeded).
func ReleaseExists(ctx context.Context, cat *catalog.Catalog, rel catalog.Release, mode images.Mode) error {
	if err := sources.Served(ctx, rel.Module(), rel.String()); err != nil {
		if errors.Is(err, sources.ErrNoGoMod) && !goModNeeded(rel, mode) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		msg := strings.TrimSpace(strings.TrimPrefix(shell.LastLine(err.Error()), "server response:"))
		if errors.Is(err, sources.ErrNoGoMod) {
			msg = sources.ErrNoGoMod.Error()
		}
		what := "no such release"
		if !sources.NotPublished(err) {
			what = "not obtainable from the module proxy"
		}
		return fmt.Errorf("argocd version %q: %s (%s); the default axis is %s", rel, what, msg, strings.Join(cat.ArgoCD.Default, ", "))
	}
	return nil
}
