package spec

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/gitrepo"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/metricsserver"
	"github.com/gitops-conformance/suite/pkg/report"
)

// Options are make upgrade-check's variables, as the e2e test binary's flags.
type Options struct {
	// From, To (FROM, TO) are the ArgoCD releases: the flags -from and -to,
	// which bisect takes too (runner.Options registers them; the caller
	// copies them here).
	From, To     string
	Apps         string // APPS: a file or directory of Applications
	ArgoCDConfig string // ARGOCD_CM: a file: the argocd-cm ConfigMap, or a map of its data
	Method       string // METHOD: how TO goes over FROM (argocd.Methods); "": as TO's upgrade guide says
	// SELF_SYNC_OPTIONS: METHOD=self-managed's Application's sync options, comma-separated
	SelfSyncOptions string
	// OVERLAY: METHOD=kustomize's overlay, a directory
	Overlay string
	// METRICS: the cluster's metrics-server, a version the catalog pins, or
	// none; "": the catalog's (metricsserver.Parse)
	Metrics string
	// CHANGE: a patch of an Application's source (a file, or
	// application=file,...), the change pushed after the upgrade
	Change string
	// DURING_SYNC: the trials of a commit pushed while a sync runs, on each
	// release (argo-cd#27875); 0: none
	DuringSync int
	// WEBHOOK: after each push, a normal refresh asked for as ArgoCD's
	// webhook handler asks on a push event
	Webhook bool
	// SHARD: k/N, the k-th of N parts of APPS (Shard)
	Shard string
	// REPO: a team's checkout (or, online, a git URL) served with its
	// history; REPOS: url=dir,... for several (ReadRepos)
	Repo, Repos string
	// ISOLATE: 1, a cell (a cluster's ArgoCD) per Application; 0, the fleet
	// on one ArgoCD; "": the fleet with REPO, REPOS or an ApplicationSet,
	// else a cell per Application
	Isolate string
	// LIFECYCLE: which Applications of the fleet a sync is asked of on TO
	// and whose cascading deletion is read: changed (default), all, none
	Lifecycle string
	// HEALTH_WINDOW: how long each Application's health must hold before
	// the fleet reads it (a Go duration); "": DefaultHealthWindow
	HealthWindow string
	// IMAGES, IMAGE_RECIPES, ARGOCD_CMD_PARAMS, and EXPECT (application=OUTCOME,...) with
	// EXPECT_WHY in place of the expectation that every Application comes
	// through SAFE (known answers): registered by Shared.Register.
	appcell.Shared
}

// Options are one of the two runs a user's Application is checked by.
var _ appcell.Options = (*Options)(nil)

// Enabled reports whether the run is make upgrade-check's: APPS names the
// Applications (-from and -to alone are a bisection's).
func (o *Options) Enabled() bool { return o.Apps != "" }

// Spec is what a make upgrade-check run checks, read before anything starts.
type Spec struct {
	From, To     catalog.Release
	Apps         []App
	Images       []string
	Recipes      [][2]string
	ArgoCDConfig map[string]string
	// ArgoCDCmdParams are argocd-cmd-params-cm's, set before the
	// Application is created (ArgoCD restarted to read them)
	ArgoCDCmdParams map[string]string
	// Method is how TO goes over FROM; "" is what TO's upgrade guide says
	// (argocd.ReadGuide, read by each cell).
	Method argocd.Method
	// SelfSyncOptions are METHOD=self-managed's Application's sync options.
	SelfSyncOptions []string
	// Overlay is METHOD=kustomize's overlay, read.
	Overlay argocd.Overlay
	// Metrics is the cluster's metrics-server (METRICS), or none.
	Metrics metricsserver.Setting
	// Changes are CHANGE's patches, by Application.
	Changes map[string]Patch
	// DuringSync is DURING_SYNC: the trials on each release (duringSync).
	DuringSync int
	// Webhook is WEBHOOK: a webhook's refresh after each push (env.WebhookRefresh).
	Webhook bool
	// Others are APPS' Applications of the other shards (SHARD): named by
	// EXPECT or CHANGE, not checked by this run.
	Others    []string
	Expect    map[string]report.Outcome
	ExpectWhy string
	// Command is make upgrade-check with the options given, for a cell's replay.
	Command string
	// Fleet is a fleet run (fleet.Feature): Repos served, AppSets created
	// beside Apps, one ArgoCD upgraded once; Refused says, one line each,
	// what of APPS it cannot take.
	Fleet bool
	// Lifecycle is the fleet's lifecycle tier, LIFECYCLE (ParseLifecycle)
	Lifecycle string
	// HealthWindow is HEALTH_WINDOW: how long every Application's health
	// holds before the fleet reads it.
	HealthWindow time.Duration
	Repos        []gitrepo.Repo
	AppSets      []*unstructured.Unstructured
	Refused      []string
	online       bool
}

// MethodSaid names the upgrade's method as the report says it.
func (s *Spec) MethodSaid() string {
	if s.Method == "" {
		return "as " + s.To.String() + "'s upgrade guide says"
	}
	said := "METHOD=" + string(s.Method) + ": " + s.Method.Command()
	switch s.Method {
	case argocd.SelfManaged:
		said += ", sync options " + text.OrNone(strings.Join(s.SelfSyncOptions, ","))
	case argocd.Kustomize:
		said = strings.Replace(said, "OVERLAY", s.Overlay.Dir, 1)
	}
	return said
}

// App is the Application of APPS named name.
func (s *Spec) App(name string) (App, bool) {
	i := slices.IndexFunc(s.Apps, func(a App) bool { return a.Name() == name })
	if i < 0 {
		return App{}, false
	}
	return s.Apps[i], true
}

// Resolve checks the options and reads the Applications and their sources:
// a user error is returned as is (the caller makes it bad input: one line,
// exit 2).
func (o Options) Resolve(ctx context.Context, cat *catalog.Catalog, w appcell.Where) (*Spec, error) {
	s := &Spec{ExpectWhy: o.ExpectWhy, Command: o.command()}
	var err error
	if o.From == "" || o.To == "" {
		return nil, fmt.Errorf("make upgrade-check: FROM and TO name the ArgoCD releases (e.g. FROM=v3.4.7 TO=v3.5.1)")
	}
	if s.From, err = cat.Release(o.From); err != nil {
		return nil, fmt.Errorf("FROM: %w", err)
	}
	if s.To, err = cat.Release(o.To); err != nil {
		return nil, fmt.Errorf("TO: %w", err)
	}
	if s.To.Compare(s.From) <= 0 {
		return nil, fmt.Errorf("TO %s is not newer than FROM %s: make upgrade-check upgrades", s.To, s.From)
	}
	if o.Method != "" {
		if s.Method, err = argocd.ParseMethod(o.Method); err != nil {
			return nil, fmt.Errorf("METHOD: %w", err)
		}
	}
	switch {
	case s.Method == argocd.Kustomize && o.Overlay == "":
		return nil, fmt.Errorf("METHOD=%s: name the overlay, OVERLAY=dir (a kustomization of ArgoCD's install manifests)", argocd.Kustomize)
	case o.Overlay != "" && s.Method != argocd.Kustomize:
		return nil, fmt.Errorf("OVERLAY %q: only for METHOD=%s", o.Overlay, argocd.Kustomize)
	case o.Overlay != "":
		if s.Overlay, err = argocd.ReadOverlay(w.Path(o.Overlay)); err != nil {
			return nil, fmt.Errorf("OVERLAY: %w", err)
		}
	}
	if o.SelfSyncOptions != "" {
		if s.Method != argocd.SelfManaged {
			return nil, fmt.Errorf("SELF_SYNC_OPTIONS %q: only for METHOD=%s (ArgoCD's own Application's sync options)", o.SelfSyncOptions, argocd.SelfManaged)
		}
		for _, opt := range strings.Split(o.SelfSyncOptions, ",") {
			if opt = strings.TrimSpace(opt); opt != "" {
				s.SelfSyncOptions = append(s.SelfSyncOptions, opt)
			}
		}
	}
	if o.DuringSync < 0 || o.DuringSync > MaxTrials {
		return nil, fmt.Errorf("DURING_SYNC %d: the trials on each release, 0 to %d (each takes one to four minutes)", o.DuringSync, MaxTrials)
	}
	s.DuringSync = o.DuringSync
	s.Webhook = o.Webhook
	if s.Metrics, err = metricsserver.Parse(o.Metrics, cat); err != nil {
		return nil, err
	}
	if o.Apps == "" {
		if o.Repo != "" || o.Repos != "" {
			return nil, fmt.Errorf("APPS: name the repository's Application and ApplicationSet files (a file or a directory, e.g. APPS=%s/apps), or a cluster's export", o.Repo)
		}
		return nil, fmt.Errorf("APPS: name a YAML file or directory of ArgoCD Applications (kubectl get applications -n argocd -o yaml > apps.yaml)")
	}
	objs, err := readObjects(w.Path(o.Apps))
	if err != nil {
		return nil, err
	}
	given, files, err := appsOf(w.Path(o.Apps), objs)
	if err != nil {
		return nil, err
	}
	if err := checkNames(given); err != nil {
		return nil, err
	}
	if s.Repos, err = gitrepo.ReadRepos(ctx, o.Repo, o.Repos, w); err != nil {
		return nil, err
	}
	s.online = w.Online
	if s.Fleet, err = o.fleet(objs, len(s.Repos) > 0); err != nil {
		return nil, err
	}
	if s.Fleet {
		return s, s.resolveFleet(ctx, o, w, objs, given, files)
	}
	if o.Lifecycle != "" {
		return nil, fmt.Errorf("LIFECYCLE=%s: the fleet's lifecycle tier (ISOLATE=0); a cell per Application runs the whole lifecycle of each", o.Lifecycle)
	}
	if o.HealthWindow != "" {
		return nil, fmt.Errorf("HEALTH_WINDOW=%s: the fleet's (ISOLATE=0); a cell per Application waits for each state it reads", o.HealthWindow)
	}
	if o.Shard != "" {
		if given, files, s.Others, err = shard(o.Shard, given, files); err != nil {
			return nil, err
		}
	}
	resolver := appcell.Resolver{CacheDir: w.CacheDir, Online: w.Online}
	for i, a := range given {
		src, err := resolver.Resolve(a, files[i])
		if err != nil {
			return nil, err
		}
		imgs, recipes, err := annotations(w.Repo, a)
		if err != nil {
			return nil, err
		}
		if err := appcell.LocalImages(ctx, imgs); err != nil {
			return nil, fmt.Errorf("application %s: %w", a.Name, err)
		}
		s.Apps = append(s.Apps, App{Spec: a, File: files[i], Source: src, Images: imgs, Recipes: recipes})
	}
	return s, s.resolveCommon(ctx, o, w)
}

// resolveCommon reads what a cell per Application and a fleet run both
// take: IMAGES, IMAGE_RECIPES, ARGOCD_CM, ARGOCD_CMD_PARAMS, CHANGE, EXPECT.
func (s *Spec) resolveCommon(ctx context.Context, o Options, w appcell.Where) error {
	var err error
	s.Images = matrix.ParseList(o.Images)
	if err := appcell.LocalImages(ctx, s.Images); err != nil {
		return err
	}
	if s.Recipes, err = appcell.Recipes(w.Repo, o.ImageRecipes); err != nil {
		return err
	}
	if o.ArgoCDConfig != "" {
		if s.ArgoCDConfig, err = appcell.ArgoCDConfig(w.Path(o.ArgoCDConfig)); err != nil {
			return fmt.Errorf("ARGOCD_CM %q: %w", o.ArgoCDConfig, err)
		}
	}
	if o.ArgoCDCmdParams != "" {
		if s.ArgoCDCmdParams, err = appcell.ArgoCDConfig(w.Path(o.ArgoCDCmdParams)); err != nil {
			return fmt.Errorf("ARGOCD_CMD_PARAMS %q: %w", o.ArgoCDCmdParams, err)
		}
	}
	if o.Change != "" {
		if err := s.readChanges(ctx, o.Change, w); err != nil {
			return err
		}
	}
	known := func(k string) error {
		if _, ok := s.App(k); !ok && !slices.Contains(s.Others, k) {
			return fmt.Errorf("no application %q in APPS", k)
		}
		return nil
	}
	if s.Fleet {
		// a fleet's Applications are named once ArgoCD generated them
		known = func(string) error { return nil }
	}
	s.Expect, err = appcell.Expectations(o.Expect, "not application=SAFE, CHANGED, BROKEN or RACE", append(slices.Clip(verdicts), report.Race), known)
	return err
}

// fleet says whether the run is a fleet's: ISOLATE as given, else whether
// REPO or REPOS names a repository or APPS holds an ApplicationSet.
func (o Options) fleet(objs []object, repos bool) (bool, error) {
	sets := slices.ContainsFunc(objs, func(o object) bool { return o.obj["kind"] == "ApplicationSet" })
	switch o.Isolate {
	case "1", "true", "yes":
		switch {
		case repos:
			return false, fmt.Errorf("ISOLATE=1 with REPO or REPOS: a cell per Application reads a local copy of each source; the served repository is the fleet's (ISOLATE=0)")
		case sets:
			return false, fmt.Errorf("ISOLATE=1 with an ApplicationSet in APPS: a cell per Application takes the Applications of APPS; ArgoCD generates an ApplicationSet's in the fleet (ISOLATE=0)")
		}
		return false, nil
	case "0", "false", "no":
		return true, nil
	case "":
	default:
		return false, fmt.Errorf("ISOLATE %q: 1 (a cell per Application) or 0 (the fleet on one ArgoCD)", o.Isolate)
	}
	return repos || sets, nil
}

// resolveFleet reads a fleet run's input (readFleet), refusing the options
// only a cell per Application has.
func (s *Spec) resolveFleet(ctx context.Context, o Options, w appcell.Where, objs []object, given []*v1alpha1.Application, files []string) error {
	for _, v := range []struct{ name, value string }{{"CHANGE", o.Change}, {"DURING_SYNC", trials(o.DuringSync)},
		{"WEBHOOK", map[bool]string{true: "1"}[o.Webhook]}} {
		if v.value != "" {
			return fmt.Errorf("%s: a cell per Application's (ISOLATE=1); the fleet on one ArgoCD compares renders, sync and health", v.name)
		}
	}
	var err error
	if s.Lifecycle, err = ParseLifecycle(o.Lifecycle); err != nil {
		return err
	}
	if s.HealthWindow, err = parseWindow(o.HealthWindow); err != nil {
		return err
	}
	if err := s.readFleet(w.Path(o.Apps), objs, given, files, w); err != nil {
		return err
	}
	if o.Shard != "" {
		if err := s.shardFleet(o.Shard); err != nil {
			return err
		}
	}
	return s.resolveCommon(ctx, o, w)
}

// shard is SHARD=k/N of APPS' Applications (and the files they came from):
// sorted by name, the k-th, the (k+N)-th ...; the others' names.
func shard(spec string, apps []*v1alpha1.Application, files []string) ([]*v1alpha1.Application, []string, []string, error) {
	order := make([]int, len(apps))
	for i := range order {
		order[i] = i
	}
	picked, others, err := pickShard(spec, order, func(i int) string { return apps[i].Name })
	if err != nil {
		return nil, nil, nil, err
	}
	if len(picked) == 0 {
		return nil, nil, nil, fmt.Errorf("SHARD %s: no Application falls in it, APPS holds %d: at most %d shards", spec, len(apps), len(apps))
	}
	var in []*v1alpha1.Application
	var inFiles []string
	for _, i := range picked {
		in, inFiles = append(in, apps[i]), append(inFiles, files[i])
	}
	return in, inFiles, others, nil
}

// pickShard is SHARD=k/N of items: sorted by name (stable), the k-th, the
// (k+N)-th ...; and the others' names. A cell per Application and the fleet
// both split by it.
func pickShard[T any](spec string, items []T, name func(T) string) (in []T, others []string, err error) {
	k, n, err := parseShard(spec)
	if err != nil {
		return nil, nil, err
	}
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b T) int { return strings.Compare(name(a), name(b)) })
	for j, it := range sorted {
		if j%n == k-1 {
			in = append(in, it)
		} else {
			others = append(others, name(it))
		}
	}
	return in, others, nil
}

// parseShard reads SHARD=k/N.
func parseShard(spec string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(spec, "/")
	k, kerr := strconv.Atoi(ks)
	n, nerr := strconv.Atoi(ns)
	if !ok || kerr != nil || nerr != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("SHARD %q: k/N, the k-th of N parts (1 <= k <= N), e.g. SHARD=2/4", spec)
	}
	return k, n, nil
}

// MaxTrials bounds DURING_SYNC.
const MaxTrials = 20

// trials is DURING_SYNC as make takes it: "" for none.
func trials(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// verdicts are the outcomes a make upgrade-check cell can have.
var verdicts = []report.Outcome{report.Safe, report.Changed, report.Broken}

// Scenario is the scenario make upgrade-check's cells belong to; each
// Application is a variant of it, made at run time (Plan), never listed in
// suites/matrix.yaml.
const Scenario = "upgrade-check"

// Unchanged is why an Application is expected SAFE when nothing else is said.
const Unchanged = "an ArgoCD upgrade is expected to leave an Application as it was (make upgrade-check)"

// The fleet's lifecycle tier (LIFECYCLE): which Applications a sync is
// asked of on TO, their hooks run, and whose cascading deletion is read.
const (
	// LifecycleChanged: those whose render tier was not SAFE (the default)
	LifecycleChanged = "changed"
	// LifecycleAll: every Application, synced on FROM first (the baseline)
	LifecycleAll = "all"
	// LifecycleNone: the render tier only
	LifecycleNone = "none"
)

// ParseLifecycle reads LIFECYCLE.
func ParseLifecycle(s string) (string, error) {
	switch s {
	case "", LifecycleChanged:
		return LifecycleChanged, nil
	case LifecycleAll, LifecycleNone:
		return s, nil
	}
	return "", fmt.Errorf("LIFECYCLE %q: changed (the Applications whose render or state changed; the default), all, or none (the render tier only)", s)
}

// DefaultHealthWindow is HEALTH_WINDOW's default: a minute's CronJob runs
// inside it, and its failed Job's health with it.
const DefaultHealthWindow = 2 * time.Minute

// parseWindow reads HEALTH_WINDOW.
func parseWindow(s string) (time.Duration, error) {
	if s == "" {
		return DefaultHealthWindow, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d > 30*time.Minute {
		return 0, fmt.Errorf("HEALTH_WINDOW %q: a Go duration from 0s to 30m (how long each Application's health holds before the fleet reads it), e.g. HEALTH_WINDOW=3m", s)
	}
	return d, nil
}
