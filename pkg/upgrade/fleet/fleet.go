package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/pkg/upgrade/cell"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/gitrepo"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/upgrade/inplace"
	"github.com/gitops-conformance/suite/pkg/upgrade/verdict"
)

// FleetVariant is the one cell of a fleet run: every Application on one
// ArgoCD, upgraded once; the report makes it a cell per Application
// (Expand).
const FleetVariant = "fleet"

// FleetFile is the fleet cell's verdicts, per Application, in its evidence.
const FleetFile = "fleet.json"

// AppResult is one Application's verdict in a fleet run.
type AppResult struct {
	Name    string         `json:"name"`
	Outcome report.Outcome `json:"outcome"`
	Reason  string         `json:"reason"`
	// Evidence is the Application's directory, in the fleet cell's evidence.
	Evidence string `json:"evidence"`
	// By is what made it: "APPS", an ApplicationSet, or an app-of-apps
	// parent Application.
	By string `json:"by"`
	// Explained are the behaviour changes of ArgoCD its verdict names
	// (pkg/upgrade/changes' ids).
	Explained []string `json:"explained,omitempty"`
	// Unexplained: CHANGED by a difference no change explains.
	Unexplained bool `json:"unexplained,omitempty"`
}

// read is what the fleet read of one Application on one release.
type read struct {
	state  appstate.State
	render *argocd.Render
	// unread says why the render or the state could not be read
	unread string
	fields []string
	// spec is the Application's spec as ArgoCD holds it (what a generator made)
	spec map[string]any
	by   string
	// parsed is render as ArgoCD applies it, parsed once (rendered)
	parse    sync.Once
	parsed   *appcell.Rendered
	parseErr error
}

// rendered is the Application's render read as ArgoCD applies it (objects
// without a namespace put into its destination's, hooks told apart),
// parsed once however often the grade, the interference and the deletion
// ask; nil for none.
func (rd *read) rendered() (*appcell.Rendered, error) {
	if rd == nil || rd.render == nil {
		return nil, nil
	}
	rd.parse.Do(func() {
		dest, _, _ := unstructured.NestedString(rd.spec, "destination", "namespace")
		rd.parsed, rd.parseErr = appcell.ParseRendered(cell.Manifest(rd.render.Objects), dest)
	})
	return rd.parsed, rd.parseErr
}

// record is what the fleet read of one Application through the run, by
// release: its render and state once the fleet settled (none where it was
// not there, or was not read), the sync asked of it (the lifecycle tier:
// on FROM with LIFECYCLE=all, on TO), and its cascading deletion on TO
// (FROM's is never tried: it would take away the fleet the upgrade is
// tried on).
type record struct {
	read    map[string]*read
	lived   map[string]*lived
	deleted *cell.Deletion
}

// release is what the fleet saw of itself on one release.
type release struct {
	read    bool              // its Applications were read (readAll)
	settled string            // what the wait saw last, when it did not settle
	appSets map[string]string // ApplicationSet -> its conditions
}

// app is the record of the Application named name, made when first asked.
func (f *fleet) app(name string) *record {
	if f.apps == nil {
		f.apps = map[string]*record{}
	}
	a := f.apps[name]
	if a == nil {
		a = &record{read: map[string]*read{}, lived: map[string]*lived{}}
		f.apps[name] = a
	}
	return a
}

// on is what the fleet saw of itself on release r, made when first asked.
func (f *fleet) on(r string) *release {
	if f.releases == nil {
		f.releases = map[string]*release{}
	}
	rel := f.releases[r]
	if rel == nil {
		rel = &release{}
		f.releases[r] = rel
	}
	return rel
}

// readOf is what was read of the Application named name on release r;
// nil where it was not read there.
func (f *fleet) readOf(name, r string) *read {
	if a := f.apps[name]; a != nil {
		return a.read[r]
	}
	return nil
}

// readOn is every Application read on release r, by name.
func (f *fleet) readOn(r string) map[string]*read {
	out := map[string]*read{}
	for n, a := range f.apps {
		if rd := a.read[r]; rd != nil {
			out[n] = rd
		}
	}
	return out
}

// fleet is a fleet run's state: what it read of each Application, and
// of the fleet on each release.
type fleet struct {
	spec     *spec.Spec
	from, to catalog.Release
	upgraded time.Time
	// apps are what was read of each Application, by name
	apps map[string]*record
	// releases are what was seen of the fleet on each release, by release
	releases map[string]*release
	// tier are the Applications the lifecycle tier takes (chooseTier)
	tier []string
	// refused is what the fleet's webhooks refused its Applications
	refused []rejection
	// made are the destination namespaces made, or found there
	made          map[string]bool
	fleetEvidence sync.Mutex
	// marks are when each phase of the run ended (FleetTimes)
	marks []Mark
}

// FleetTimes is the fleet cell's phases in its evidence: what make
// bench-upgrade-check prints.
const FleetTimes = "fleet-times.json"

// Mark is the end of one phase of a fleet run.
type Mark struct {
	Phase   string    `json:"phase"`
	At      time.Time `json:"at"`
	Seconds float64   `json:"seconds"` // since the mark before
}

// mark ends a phase.
func (f *fleet) mark(phase string) step.Step {
	return appcell.Reads("phase "+phase+" ended", func(context.Context) error {
		m := Mark{Phase: phase, At: time.Now()}
		if n := len(f.marks); n > 0 {
			m.Seconds = m.At.Sub(f.marks[n-1].At).Round(100 * time.Millisecond).Seconds()
		}
		f.marks = append(f.marks, m)
		return nil
	})
}

// AppName is "" (inplace.Owner): no one Application owns the upgrade.
func (f *fleet) AppName() string { return "" }

// OwnWebhooks are, of the live webhooks, those of the fleet's
// Applications as read on FROM (webhookOwner), each with its Application.
func (f *fleet) OwnWebhooks(_ context.Context, live []check.Webhook) map[string]string {
	out := map[string]string{}
	reads := f.readOn(f.from.String())
	for _, w := range live {
		if _, app := webhookOwner(reads, w.Name, live); app != "" {
			out[w.ConfigRef()] = app
		}
	}
	return out
}

// Feature is the fleet run: the team's repositories served, every
// Application and ApplicationSet of APPS created on ArgoCD FROM and left to
// sync as its policy says, the generated Applications waited for; every
// Application's state and render read; ArgoCD upgraded in place once, as
// the team does it; every Application read again once TO's controller
// compared it by itself; the verdicts (gradeFleet), one per Application.
func Feature(s *spec.Spec, c matrix.Cell) step.Scenario {
	steps := step.New(c.Report().ID())
	if len(c.Upgrades) == 0 {
		return steps.Add(env.Fail("upgrade", fmt.Errorf("no release to upgrade to newer than %s", c.ArgoCD))).Scenario()
	}
	m, err := s.FleetManifest()
	if err != nil { // before anything runs: the cell ends ERROR saying which
		return steps.Add(env.Fail("the fleet's Applications and ApplicationSets", err)).Scenario()
	}
	f := &fleet{spec: s, from: c.ArgoCD, to: c.Upgrades[len(c.Upgrades)-1], made: map[string]bool{}}
	from, to := f.from.String(), f.to.String()
	steps.Add(f.describe(), f.mark("start"))
	steps.Add(cell.TeamArgoCD(s, f.from)...)
	for _, r := range s.Repos {
		steps.Add(f.serve(r), env.Apply("repository "+r.URL+", registered as a team registers its own", spec.RepositorySecret(r.Name, r.Served())))
	}
	for _, a := range s.Apps {
		if a.Served {
			continue
		}
		files := fixture.OfflinePullPolicy(func(context.Context) (map[string]string, error) { return a.Source.Files, nil })
		steps.Add(env.PushRepo(a.Name(), files), env.Apply("application "+a.Name()+"'s repository", spec.RepositorySecret(a.Name(), gitserver.URL(a.Name()))))
	}
	steps.Add(f.mark("serve"))
	if m := s.Projects(); m != "" {
		steps.Add(env.Apply("the AppProjects the Applications name", m))
	}
	if m := s.Namespaces(); m != "" {
		steps.Add(env.Apply("the Applications' destination namespaces", m))
	}
	if m != "" {
		steps.Add(env.Apply(fmt.Sprintf("%d Application(s) and %d ApplicationSet(s)", len(s.Apps), len(s.AppSets)), m))
	}
	steps.Add(f.mark("create"), f.settle(from, func() time.Time { return time.Time{} }), f.mark("settle-"+from))
	if s.Lifecycle == spec.LifecycleAll {
		// FROM's baseline: a sync asked of every Application, read by both tiers
		steps.Add(f.namespacesFor(func(string) bool { return true }), f.syncEach(from, liveNames), f.mark("sync-"+from))
	}
	steps.Add(f.readAll(from), f.mark("read-"+from), f.named(), env.Snapshot("on-"+from))
	steps.Add(inplace.Steps(f.from, f.to, inplace.How{Method: s.Method, SyncOptions: s.SelfSyncOptions, Overlay: s.Overlay}, f)...)
	steps.Add(appcell.Reads("the upgrade's end", func(context.Context) error { f.upgraded = time.Now(); return nil }), f.mark("upgrade"),
		f.settle(to, func() time.Time { return f.upgraded }), f.mark("settle-"+to),
		f.readAll(to), f.mark("read-"+to), env.Snapshot("on-"+to))
	if s.Lifecycle != spec.LifecycleNone {
		// the lifecycle tier: a sync asked on TO (hooks)
		steps.Add(f.chooseTier(), f.namespacesFor(func(n string) bool { return slices.Contains(f.tier, n) }),
			f.syncEach(to, func(context.Context) ([]string, error) { return f.tier, nil }), f.mark("sync-"+to))
	}
	steps.Add(f.rejections(&f.refused))
	if s.Lifecycle != spec.LifecycleNone {
		steps.Add(f.deleteFleet(), f.mark("delete"))
	}
	return steps.Add(assert.Graded(fmt.Sprintf("the fleet through the upgrade %s -> %s", from, to), f.grade)).Scenario()
}

// named writes FleetFile with every Application read on FROM and no
// verdict yet: a run that ends before grade (an upgrade that cannot
// finish) still makes a cell of each, with the fleet cell's outcome
// (expand); grade writes it again with the verdicts.
func (f *fleet) named() step.Step {
	return appcell.Reads("the fleet's Applications, to be judged", func(ctx context.Context) error {
		var results []AppResult
		reads := f.readOn(f.from.String())
		for _, n := range slices.Sorted(maps.Keys(reads)) {
			results = append(results, AppResult{Name: n, Evidence: "apps/" + n, By: reads[n].by})
		}
		data, err := json.MarshalIndent(results, "", "  ")
		if err != nil {
			return err
		}
		lifecycle.CellFrom(ctx).WriteEvidence(FleetFile, string(data)+"\n")
		return nil
	})
}

// describe writes what the fleet is made of into the evidence.
func (f *fleet) describe() step.Step {
	return appcell.Reads("the fleet", func(ctx context.Context) error {
		var b strings.Builder
		fmt.Fprintf(&b, "# The fleet: %s -> %s\n\n", f.from, f.to)
		for _, r := range f.spec.Repos {
			fmt.Fprintf(&b, "- repository %s from %s, served as %s\n", r.URL, r.Dir, r.Served())
		}
		for _, a := range f.spec.Apps {
			fmt.Fprintf(&b, "- Application %s (%s)\n", a.Name(), a.File)
		}
		for _, a := range f.spec.AppSets {
			fmt.Fprintf(&b, "- ApplicationSet %s\n", a.GetName())
		}
		for _, r := range f.spec.Refused {
			fmt.Fprintf(&b, "- not taken: %s\n", r)
		}
		lifecycle.CellFrom(ctx).WriteEvidence("fleet.md", b.String())
		return nil
	})
}

// serve pushes a team's repository, with its history, to the git server.
func (f *fleet) serve(r gitrepo.Repo) step.Step {
	return appcell.Reads("repository "+r.URL+" served from "+r.Dir, func(ctx context.Context) error {
		bundle, notes, err := r.Bundle(ctx, f.spec.Repos)
		if err != nil {
			return fmt.Errorf("repository %s: %w", r.URL, err)
		}
		refs, err := lifecycle.From(ctx).Git.PushBundle(ctx, r.Name, bundle)
		if err != nil {
			return err
		}
		lifecycle.Note(ctx, "repository %s served as %s: %d refs, %d KiB", r.URL, r.Served(), refs, len(bundle)/1024)
		for _, n := range notes {
			lifecycle.Note(ctx, "repository %s: %s", r.URL, n)
		}
		return nil
	})
}

// settleWithin bounds the wait for a fleet to settle: ArgoCD renders each
// Application once (its repo server, one at a time per core), so it grows
// with the fleet.
func settleWithin(apps int) time.Duration {
	return 3*time.Minute + time.Duration(apps)*2*time.Second
}

// settle waits until every ApplicationSet has generated, the Applications
// stop growing in number (app-of-apps), and every Application was compared
// since `since` with no operation running; a fleet that does not within
// settleWithin is read as it is, and the wait says what it saw. The
// destination namespace of each Application that syncs by itself (generated
// ones too) is made as it appears, as a platform team has it.
func (f *fleet) settle(on string, since func() time.Time) step.Step {
	what := "the fleet settled on " + on + " (ApplicationSets generated, every Application compared, no sync running)"
	return step.Act(what, func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		return f.settleFunc(what, on, since, func(ns []string) {
			ctx = f.applyNamespaces(ns).Func()(ctx, t, cfg)
		}).Func()(ctx, t, cfg)
	})
}

// applyNamespaces makes namespaces in one apply (a fleet of 200 has 200).
func (f *fleet) applyNamespaces(ns []string) step.Step {
	return env.Apply(fmt.Sprintf("%d destination namespace(s), as a platform team has them", len(ns)), spec.NamespacesManifest(ns))
}

// namespacesFor makes the destination namespaces missing of the
// Applications take takes (by name), before a sync is asked of them (the
// render tier needs none: a fleet whose Applications do not sync makes
// none).
func (f *fleet) namespacesFor(take func(string) bool) step.Step {
	what := "the destination namespaces of the Applications a sync is asked of"
	return step.Act(what, func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		var missing []string
		ctx = appcell.Reads(what, func(ctx context.Context) error {
			apps, err := listApps(ctx)
			if err != nil {
				return assert.Unknown(err)
			}
			missing, err = newNamespaces(ctx, apps.Items, f.made, func(a unstructured.Unstructured) bool { return take(a.GetName()) })
			if err != nil {
				return assert.Unknown(err)
			}
			return nil
		}).Func()(ctx, t, cfg)
		if len(missing) == 0 {
			return ctx
		}
		return f.applyNamespaces(missing).Func()(ctx, t, cfg)
	})
}

// syncsByItself says whether an Application syncs by itself (automated).
func syncsByItself(a unstructured.Unstructured) bool {
	_, ok, _ := unstructured.NestedFieldNoCopy(a.Object, "spec", "syncPolicy", "automated")
	return ok
}

// newNamespaces are the destination namespaces of the apps take takes
// that are not there yet (made, those seen, grows), but for an Application
// that creates its own (CreateNamespace=true).
func newNamespaces(ctx context.Context, apps []unstructured.Unstructured, made map[string]bool, take func(unstructured.Unstructured) bool) ([]string, error) {
	var out []string
	for _, a := range apps {
		ns, _, _ := unstructured.NestedString(a.Object, "spec", "destination", "namespace")
		opts, _, _ := unstructured.NestedStringSlice(a.Object, "spec", "syncPolicy", "syncOptions")
		if ns == "" || made[ns] || !take(a) || slices.Contains(opts, "CreateNamespace=true") {
			continue
		}
		made[ns] = true
		switch _, err := check.Get(ctx, lifecycle.Namespace(ns)); {
		case lifecycle.NotFound(err):
			out = append(out, ns)
		case err != nil:
			return nil, err
		}
	}
	return out, nil
}

// settleFunc is settle's wait; makeNamespaces makes the namespaces it finds
// missing. It lists the fleet every 5 s rather than through assert.Eventually,
// which would look again at every change of every Application while hundreds
// sync (docs/design.md, "Waits"); settleWithin bounds it all the same.
func (f *fleet) settleFunc(what, on string, since func() time.Time, makeNamespaces func([]string)) step.Step {
	return appcell.Reads(what, func(ctx context.Context) error {
		start, count, stable := time.Now(), -1, 0
		window := f.spec.HealthWindow
		healths := map[string]heldHealth{}
		for {
			apps, err := listApps(ctx)
			if err != nil {
				return assert.Unknown(err)
			}
			sets, err := check.List(ctx, lifecycle.Selection{Kinds: "applicationsets.argoproj.io", Namespace: argocd.Namespace})
			if err != nil && len(f.spec.AppSets) > 0 {
				return assert.Unknown(err)
			}
			conds := map[string]string{}
			var waiting []string
			if sets != nil {
				for _, s := range sets.Items {
					c, done := appSetConditions(s.Object)
					conds[s.GetName()] = c
					if !done {
						waiting = append(waiting, "ApplicationSet "+s.GetName()+" generating")
					}
				}
			}
			missing, err := newNamespaces(ctx, apps.Items, f.made, syncsByItself)
			if err != nil {
				return assert.Unknown(err)
			}
			if len(missing) > 0 {
				lifecycle.Note(ctx, "the destination namespaces of the Applications that sync by themselves, made as a platform team has them: %s", strings.Join(missing, ", "))
				makeNamespaces(missing)
			}
			for _, a := range apps.Items {
				if w := unsettled(a.Object, since()); w != "" {
					waiting = append(waiting, "Application "+a.GetName()+" "+w)
				}
				h := healths[a.GetName()].next(a.Object, since())
				healths[a.GetName()] = h
				if held := time.Since(h.since); held < window {
					waiting = append(waiting, fmt.Sprintf("Application %s health %s for %s of HEALTH_WINDOW's %s", a.GetName(), text.OrNone(h.status), held.Round(time.Second), window))
				}
			}
			if len(apps.Items) == count {
				stable++
			} else {
				count, stable = len(apps.Items), 0
			}
			f.on(on).appSets = conds
			if t := since(); !t.IsZero() && len(f.spec.AppSets) > 0 && time.Since(t) < appSetRequeue {
				// TO's applicationset controller reconciles each ApplicationSet
				// when it starts; its conditions stay as FROM's left them
				// when nothing changed, so they do not say it has
				waiting = append(waiting, "TO's applicationset controller's first pass")
			}
			if len(waiting) == 0 && stable >= 2 {
				lifecycle.Note(ctx, "the fleet settled on %s in %s: %d Applications, each one's health unchanged for HEALTH_WINDOW's %s", on, time.Since(start).Round(time.Second), count, window)
				return nil
			}
			if within := settleWithin(count) + window; time.Since(start) > within {
				seen := fmt.Sprintf("not settled within %s: %d waited for: %s", within.Round(time.Second), len(waiting), strings.Join(waiting[:min(len(waiting), 5)], "; "))
				f.on(on).settled = seen
				lifecycle.Note(ctx, "the fleet on %s %s", on, seen)
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Second):
			}
		}
	})
}

// heldHealth is an Application's health as the settle saw it, and since
// when it has held.
type heldHealth struct {
	status string
	since  time.Time
}

// next is the health held after a look at the Application obj: since its
// status.health.lastTransitionTime where ArgoCD writes one (3.0 on), else
// since it was first seen so; never since before floor (the upgrade: TO's
// controller's own comparison counts).
func (h heldHealth) next(obj map[string]any, floor time.Time) heldHealth {
	status, _, _ := unstructured.NestedString(obj, "status", "health", "status")
	if h.since.IsZero() || status != h.status {
		h = heldHealth{status: status, since: time.Now()}
		at, _, _ := unstructured.NestedString(obj, "status", "health", "lastTransitionTime")
		if t, err := time.Parse(time.RFC3339, at); err == nil && t.Before(h.since) {
			h.since = t
		}
	}
	if h.since.Before(floor) {
		h.since = floor
	}
	return h
}

// appSetRequeue is how long after the upgrade the fleet waits at least for
// TO's applicationset controller to have generated every ApplicationSet
// again (it reconciles each as it starts: a few seconds for a handful).
const appSetRequeue = 45 * time.Second

// appSetConditions are an ApplicationSet's conditions as one line, and
// whether it has generated (ResourcesUpToDate, or an error it reports).
func appSetConditions(obj map[string]any) (string, bool) {
	conds, _, _ := unstructured.NestedSlice(obj, "status", "conditions")
	var lines []string
	done := false
	for _, c := range conds {
		m, _ := c.(map[string]any)
		typ, status, msg := fmt.Sprint(m["type"]), fmt.Sprint(m["status"]), fmt.Sprint(m["message"])
		lines = append(lines, fmt.Sprintf("%s=%s (%s)", typ, status, text.Clip(msg, 160)))
		if status == "True" && (typ == "ResourcesUpToDate" || typ == "ErrorOccurred") {
			done = true
		}
	}
	return strings.Join(lines, "; "), done
}

// unsettled says what an Application is still doing: not compared since
// `since`, or a sync running; "" when settled.
func unsettled(obj map[string]any, since time.Time) string {
	at, _, _ := unstructured.NestedString(obj, "status", "reconciledAt")
	t, err := time.Parse(time.RFC3339, at)
	switch {
	case at == "" || err != nil:
		return "not compared yet"
	case !since.IsZero() && t.Before(since.Truncate(time.Second)):
		return "not compared since the upgrade"
	}
	if status, _, _ := unstructured.NestedString(obj, "status", "sync", "status"); status == "" {
		return "sync status unknown"
	}
	if phase, _, _ := unstructured.NestedString(obj, "status", "operationState", "phase"); phase == "Running" || phase == "Terminating" {
		return "syncing"
	}
	return ""
}

// listApps reads the fleet's Applications as ArgoCD holds them.
func listApps(ctx context.Context) (*unstructured.UnstructuredList, error) {
	return check.List(ctx, lifecycle.Selection{Kinds: "applications.argoproj.io", Namespace: argocd.Namespace})
}

// renderWorkers is how many renders the fleet asks of ArgoCD's API server
// at once: its repo server renders in parallel, on the node's cores.
const renderWorkers = 4

// inParallel calls do for each item, renderWorkers at once, and returns
// each one's result by its key.
func inParallel[T, R any](items []T, key func(T) string, do func(T) R) map[string]R {
	out := map[string]R{}
	work := make(chan T)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range renderWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				r := do(it)
				mu.Lock()
				out[key(it)] = r
				mu.Unlock()
			}
		}()
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
	return out
}

// readAll reads every Application's state, status fields, spec and render
// on a release into dst: one that could not be read says why.
func (f *fleet) readAll(on string) step.Step {
	return appcell.Reads("every Application's state and render on "+on, func(ctx context.Context) error {
		list, err := listApps(ctx)
		if err != nil {
			return assert.Unknown(err)
		}
		start := time.Now()
		out := inParallel(list.Items, func(a unstructured.Unstructured) string { return a.GetName() },
			func(a unstructured.Unstructured) *read { return f.readOne(ctx, a, on) })
		for n, rd := range out {
			f.app(n).read[on] = rd
		}
		f.on(on).read = true
		unread := 0
		for _, rd := range out {
			if rd.unread != "" {
				unread++
			}
		}
		lifecycle.Note(ctx, "on %s: %d Applications read in %s (%d could not be)", on, len(out), time.Since(start).Round(time.Second), unread)
		return nil
	})
}

// readOne reads one Application of the fleet and writes its evidence.
func (f *fleet) readOne(ctx context.Context, live unstructured.Unstructured, on string) *read {
	name := live.GetName()
	rd := &read{by: madeBy(&live)}
	rd.spec, _, _ = unstructured.NestedMap(live.Object, "spec")
	status, _, _ := unstructured.NestedMap(live.Object, "status")
	rd.fields = appstate.Fields(status)
	var app v1alpha1.Application
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &app); err != nil {
		rd.unread = "the Application as ArgoCD holds it: " + err.Error()
		return rd
	}
	rd.state = cell.StateOf(ctx, &app, on)
	render, err := check.AppManifests(ctx, name)
	if err != nil {
		rd.unread = "the render: " + err.Error()
	} else {
		rd.render = render
	}
	dir := "apps/" + name + "/"
	c := lifecycle.CellFrom(ctx)
	f.fleetEvidence.Lock()
	defer f.fleetEvidence.Unlock()
	if render != nil {
		c.WriteEvidence(dir+"render-"+on+".yaml", cell.Manifest(render.Objects))
	}
	c.WriteEvidence(dir+"state-"+on+".txt", strings.Join(rd.state.Lines(), "\n")+"\n"+orUnread(rd.unread))
	if spec, err := yaml.Marshal(rd.spec); err == nil {
		c.WriteEvidence(dir+"spec-"+on+".yaml", string(spec))
	}
	return rd
}

func orUnread(s string) string {
	if s == "" {
		return ""
	}
	return "could not tell: " + s + "\n"
}

// madeBy is what made an Application: the ApplicationSet that owns it, the
// Application whose sync created it (app-of-apps: its tracking), or APPS.
func madeBy(app *unstructured.Unstructured) string {
	for _, o := range app.GetOwnerReferences() {
		if o.Kind == "ApplicationSet" {
			return "ApplicationSet " + o.Name
		}
	}
	if id := app.GetAnnotations()["argocd.argoproj.io/tracking-id"]; id != "" {
		parent, _, _ := strings.Cut(id, ":")
		return "Application " + parent
	}
	if parent := app.GetLabels()["app.kubernetes.io/instance"]; parent != "" {
		return "Application " + parent
	}
	return "APPS"
}

// grade is the fleet's verdicts: one per Application (verdict.Grade over f.reading), written
// as FleetFile for the report (Expand); the fleet cell's own outcome is the
// worst of them.
func (f *fleet) grade(ctx context.Context) (report.Outcome, string, error) {
	from, to := f.from.String(), f.to.String()
	if !f.on(from).read || !f.on(to).read {
		return "", "", fmt.Errorf("could not tell: the fleet was not read on both releases")
	}
	var names []string
	for n, a := range f.apps {
		if a.read[from] != nil || a.read[to] != nil {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var results []AppResult
	count := map[report.Outcome]int{}
	c := lifecycle.CellFrom(ctx)
	// Applications that render one object both: reported on each, by name
	// (interference, not what the upgrade changed: the verdict stays)
	interferes := shared(f.readOn(to))
	refused := refusedLines(f.refused, from, to)
	var hooks strings.Builder
	for _, n := range slices.Sorted(maps.Keys(refused)) {
		fmt.Fprintf(&hooks, "%s:\n  %s\n", n, strings.Join(refused[n], "\n  "))
	}
	for _, r := range f.refused {
		if r.owner == "" && r.victim == "" {
			fmt.Fprintf(&hooks, "neither the webhook's nor the object's Application is of the fleet: %s %s: %s\n", r.webhook, text.OrNone(r.config), r.what)
		}
	}
	c.WriteEvidence("webhooks.txt", hooks.String())
	for _, n := range names {
		r := f.reading(n)
		v := verdict.Judge(r)
		o, why := v.Outcome, v.Reason
		by := r.By
		for _, s := range []struct{ on, seen string }{{from, f.on(from).settled}, {to, f.on(to).settled}} {
			if s.seen != "" && o != report.Safe {
				why += " (the fleet did not settle on " + s.on + ": " + s.seen + ")"
			}
		}
		if objs := interferes[n]; len(objs) > 0 {
			why += fmt.Sprintf("; interferes: %d object(s) another Application of the fleet renders too: %s", len(objs), strings.Join(objs[:min(len(objs), verdict.Shown)], "; "))
		}
		if lines := refused[n]; len(lines) > 0 {
			why += fmt.Sprintf("; interferes: %d request(s) refused by a webhook: %s", len(lines), strings.Join(lines[:min(len(lines), verdict.Shown)], "; "))
		}
		results = append(results, AppResult{Name: n, Outcome: o, Reason: why, Evidence: "apps/" + n, By: by, Explained: v.Explained, Unexplained: v.Unexplained})
		count[o]++
		c.WriteEvidence("apps/"+n+"/verdict.txt", string(o)+": "+why+"\n")
	}
	data, err := json.MarshalIndent(results, "", "  ")
	if err != nil {
		return "", "", err
	}
	c.WriteEvidence(FleetFile, string(data)+"\n")
	if times, err := json.MarshalIndent(f.marks, "", "  "); err == nil {
		c.WriteEvidence(FleetTimes, string(times)+"\n")
	}
	var sets strings.Builder
	for _, on := range []struct {
		release string
		conds   map[string]string
	}{{from, f.on(from).appSets}, {to, f.on(to).appSets}} {
		for _, n := range slices.Sorted(maps.Keys(on.conds)) {
			fmt.Fprintf(&sets, "%s on %s: %s\n", n, on.release, on.conds[n])
		}
	}
	c.WriteEvidence("applicationsets.txt", sets.String())
	worst := report.Safe
	for _, o := range []report.Outcome{report.Changed, report.Error, report.Broken} {
		if count[o] > 0 {
			worst = o
		}
	}
	var parts []string
	for _, o := range []report.Outcome{report.Broken, report.Error, report.Changed, report.Safe} {
		if count[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[o], o))
		}
	}
	return worst, fmt.Sprintf("%d Applications through %s -> %s on one ArgoCD: %s (%s)", len(results), f.from, f.to, strings.Join(parts, ", "), FleetFile), nil
}

// reading is what the fleet read of the Application named name, as the
// verdict takes it (record.reading).
func (f *fleet) reading(name string) verdict.Reading {
	return f.apps[name].reading(f.from.String(), f.to.String())
}

// reading is what the fleet read of one Application through from -> to,
// as the verdict takes it: on each release its render and its state once
// the fleet settled, and, for the lifecycle tier, the sync asked (on FROM
// with LIFECYCLE=all) and its deletion on TO.
func (a *record) reading(from, to string) verdict.Reading {
	if a == nil {
		a = &record{}
	}
	rf, rt := a.read[from], a.read[to]
	r := verdict.Reading{From: rf.side(from), To: rt.side(to), ChangesIn: ": render-" + from + ".yaml, render-" + to + ".yaml"}
	switch {
	case rf != nil:
		r.By = rf.by
	case rt != nil:
		r.By = rt.by
	}
	if rf == nil || rt == nil {
		return r
	}
	if rf.render != nil && rt.render != nil {
		// the fleet pushes no marker of its own: the renders compare whole
		r.Changes = appstate.Compare(rf.render.Objects, rt.render.Objects)
	}
	if rf.by != "APPS" {
		if gen := appstate.Compare([]*unstructured.Unstructured{specObject(rf.spec)}, []*unstructured.Unstructured{specObject(rt.spec)}); len(gen) > 0 {
			r.Generated = gen[0].String()
		}
	}
	if l := a.lived[from]; l != nil && l.unread == "" {
		// FROM was read after the sync asked of it (LIFECYCLE=all): that
		// state is its baseline after a sync
		r.From.Synced = r.From.Settled
	}
	if l := a.lived[to]; l != nil {
		if l.unread != "" {
			r.To.SyncUnread = l.unread
		} else {
			r.To.Synced, r.To.Waited = &l.state, l.waited
		}
	}
	if rd, err := rt.rendered(); err == nil && rd != nil {
		// the hooks are compared where a sync was asked on TO (Grade)
		r.To.InGit, r.Hooks = cell.InGit(rd), cell.NamedHooks(rd)
	}
	if a.deleted != nil {
		r.To.Deletion = a.deleted.Verdict()
	}
	return r
}

// side is what the fleet read of an Application on release on; nil where
// it was not there.
func (rd *read) side(on string) *verdict.Side {
	if rd == nil {
		return nil
	}
	state := rd.state
	s := &verdict.Side{Release: on, Unread: rd.unread, Rendered: rd.render != nil, Settled: &state, Fields: rd.fields}
	if rd.render != nil {
		s.Objects = len(rd.render.Objects)
	}
	return s
}

// specObject is an Application's spec as an object appstate.Compare takes.
func specObject(spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "argoproj.io/v1alpha1", "kind": "Application", "metadata": map[string]any{"name": "spec"}, "spec": spec}}
}

// shared are, per Application, the objects another Application of the
// fleet renders too (two owners of one object: each sync takes it from
// the other), one line each naming the others: "kind ns/name (also a, b)".
func shared(reads map[string]*read) map[string][]string {
	owners := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(reads)) {
		r, err := reads[name].rendered()
		if err != nil || r == nil {
			continue
		}
		seen := map[string]bool{}
		for _, o := range r.Objects {
			if o.Hook != "" {
				continue // a hook is made and deleted by its sync, not owned
			}
			ref := appstate.Ref(o.Unstructured)
			if !seen[ref] {
				seen[ref] = true
				owners[ref] = append(owners[ref], name)
			}
		}
	}
	out := map[string][]string{}
	for _, ref := range slices.Sorted(maps.Keys(owners)) {
		apps := owners[ref]
		if len(apps) < 2 {
			continue
		}
		for _, a := range apps {
			others := slices.DeleteFunc(slices.Clone(apps), func(o string) bool { return o == a })
			out[a] = append(out[a], fmt.Sprintf("%s (also %s)", ref, strings.Join(others, ", ")))
		}
	}
	return out
}
