package cell

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
)

func acted(what, wanted string) Pushed {
	return Pushed{What: what, Wanted: wanted, Observed: env.Observed{Held: true, After: time.Minute}}
}

// What ArgoCD did not do with a commit pushed, or with commits pushed
// during a sync, as the verdict names it (verdict.Grade has the rules).
func TestPushedAndTrialsSayWhatArgoCDDidNot(t *testing.T) {
	p := Pushed{What: "a change: configmap ns/m added", Wanted: "synced by ArgoCD itself", Observed: env.Observed{Seen: "timed out: sync Synced, health Healthy"}}
	if got, want := p.problem(), "a change: configmap ns/m added, pushed to git, not synced by ArgoCD itself within 6m30s with no refresh asked for: timed out: sync Synced, health Healthy"; got != want {
		t.Errorf("problem = %q, want %q", got, want)
	}
	p.Left = "still in the cluster, and the Application no longer lists it: left behind"
	if got := p.problem(); !strings.HasSuffix(got, "asked for: still in the cluster, and the Application no longer lists it: left behind") {
		t.Errorf("a removal left behind: %q", got)
	}
	if got := acted("a change", "shown OutOfSync").problem(); got != "" {
		t.Errorf("acted on: %q", got)
	}
	ts := Trials{trial(true, true), {During: true, Observed: env.Observed{Seen: "timed out: operation (auto-sync) at 1111"},
		Log: `level=info msg="Skipping auto-sync: most recent sync already to 1111" application=argocd/during-sync`}}
	if got, want := ts.problem("b"), `a commit pushed while ArgoCD synced the one before (argo-cd#27875): 1/2 synced by ArgoCD itself on b, within 3m0s with no refresh asked for; not synced: timed out: operation (auto-sync) at 1111; the controller logged: level=info msg="Skipping auto-sync: most recent sync already to 1111" application=argocd/during-sync`; got != want {
		t.Errorf("trials: %q, want %q", got, want)
	}
	if got := (Trials{trial(true, false), trial(false, false)}).String(); got != "0/1 synced by ArgoCD itself (1 of 2 trials not counted: B not pushed during a sync of A)" {
		t.Errorf("trials' tally: %q", got)
	}
}

// A cell's steps name themselves once each, and the verdict comes after
// both deletions.
func TestCellSteps(t *testing.T) {
	s := &spec.Spec{From: catalog.MustRelease("v3.4.7"), To: catalog.MustRelease("v3.5.1"), Apps: []spec.App{firstApp(t, "../spec/testdata/apps")}}
	sc := Feature(s, cellOf(s))
	if len(sc.Repeated) > 0 {
		t.Errorf("step names taken twice: %q", sc.Repeated)
	}
	names := sc.Names()
	all := strings.Join(names, "\n")
	for _, want := range []string{"delete application chart-dir with cascade on v3.4.7", "delete application chart-dir with cascade on v3.5.1",
		"application chart-dir through the upgrade v3.4.7 -> v3.5.1",
		// the destination namespace's events in the evidence (what its workloads did)
		"watch namespace demo",
		// the upgrade as the team does it, and the wait that says what keeps it
		"upgrade argocd to v3.5.1 in place (as its upgrade guide says)", "argocd v3.5.1's workloads rolled out (or what keeps them from it)",
		// no hard refresh; a commit on FROM, a removal and a change on TO,
		// each waited for as the policy says (this Application syncs by hand)
		"observe application chart-dir compared by v3.5.1's controller by itself",
		"push a change: configmap demo/gitops-conformance-upgrade-check added to application chart-dir's source on v3.4.7",
		"observe application chart-dir: a change: configmap demo/gitops-conformance-upgrade-check added, shown OutOfSync on v3.4.7 (no refresh asked for)",
		"observe application chart-dir: a removal: configmap demo/gitops-conformance-upgrade-check, made on v3.4.7, taken out, shown to prune on v3.5.1 (no refresh asked for)",
		"observe application chart-dir: a change: configmap demo/gitops-conformance-upgrade-check back, annotated, shown OutOfSync on v3.5.1 (no refresh asked for)"} {
		if !strings.Contains(all, want) {
			t.Errorf("no step %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "hard refresh") {
		t.Errorf("a hard refresh is asked for:\n%s", all)
	}
	if want := "application chart-dir through the upgrade"; !strings.Contains(names[len(names)-2], want) {
		t.Errorf("the verdict %q is not the last look:\n%s", names[len(names)-2], all)
	}
}

// An object of the render that could not be read after a cascading
// deletion is kept as such: the cell could not tell what the cascade left,
// and says which (never "gone").
func TestAnUnreadObjectIsCouldNotTell(t *testing.T) {
	st := &appstate.State{Release: "v3.4.7", Sync: "Synced", Health: "Healthy", Phase: "Succeeded"}
	k := &cell{Observed: Observed{From: catalog.MustRelease("v3.4.7"), To: catalog.MustRelease("v3.5.1"), OnFrom: st, Refreshed: st, Synced: st,
		RenderFrom: &argocd.Render{}, RenderTo: &argocd.Render{}, FieldsFrom: []string{"status.sync.status"}, FieldsTo: []string{"status.sync.status"},
		DelFrom: Deletion{Read: true, Gone: true}, DelTo: Deletion{Read: true, Gone: true, Unread: []string{"configmap team/x: connection refused"}}}}
	ctx, _ := lifecycle.WithCell(context.Background(), t.TempDir())
	o, why, err := k.grade(ctx)
	if err != nil || o != report.Error || !strings.Contains(why, "could not tell: what the cascading deletion on v3.5.1 left: configmap team/x: connection refused") {
		t.Errorf("grade: %s (%s) %v", o, why, err)
	}
}

// What a cell read reaches the verdict: the commits and the status's
// fields too (run 20261128-082325 read status.resources[].health.status on
// v2.14.11 and not on v3.5.1, and the verdict did not say so).
func TestTheCellsReadingsReachTheVerdict(t *testing.T) {
	st := &appstate.State{Release: "v2.14.11", Sync: "Synced", Health: "Healthy", Phase: "Succeeded"}
	k := &cell{Observed: Observed{From: catalog.MustRelease("v2.14.11"), To: catalog.MustRelease("v3.5.1"), OnFrom: st, Refreshed: st, Synced: st,
		RenderFrom: &argocd.Render{}, RenderTo: &argocd.Render{},
		FieldsFrom: []string{"status.resources[].health.status", "status.sync.status"}, FieldsTo: []string{"status.sync.status"},
		Added:   Pushed{What: "a Change: m added", Wanted: "synced by ArgoCD itself", Observed: env.Observed{Seen: "timed out"}},
		Change:  Pushed{What: "a Change: m back", Wanted: "synced by ArgoCD itself", Observed: env.Observed{Seen: "timed out"}},
		DelFrom: Deletion{Read: true, Gone: true}, DelTo: Deletion{Read: true, Gone: true}}}
	ctx, _ := lifecycle.WithCell(context.Background(), t.TempDir())
	ctx, rec := assert.WithRecord(ctx, false)
	o, why, err := k.grade(ctx)
	if err != nil || o != report.Broken || !strings.Contains(why, "v2.14.11 did not act on its commit either") {
		t.Errorf("grade = %s (%s) %v", o, why, err)
	}
	k.Added.Held, k.Change.Held = true, true
	if o, why, _ = k.grade(ctx); o != report.Changed || !strings.Contains(why, "explained: health-not-persisted") {
		t.Errorf("grade = %s (%s)", o, why)
	}
	// the report's cell carries what the reason explains (report.json's explained)
	if e := rec.Explanation(); !slices.Equal(e.IDs, []string{"health-not-persisted"}) || e.Unexplained {
		t.Errorf("the cell's explanation %+v, want health-not-persisted and nothing unexplained", e)
	}
	// CHANGE's revert and DURING_SYNC's trials reach it too (run
	// 20261128-105941 graded SAFE with 0/3 on v3.6.1: they did not)
	k.Revert = Pushed{What: "CHANGE's x reverted", Wanted: "synced by ArgoCD itself", Observed: env.Observed{Seen: "timed out"}}
	if o, why, _ = k.grade(ctx); o != report.Broken || !strings.Contains(why, "CHANGE's x reverted") {
		t.Errorf("grade with the revert not acted on = %s (%s)", o, why)
	}
	k.Revert.Held = true
	k.DuringFrom, k.DuringTo = Trials{trial(true, true)}, Trials{trial(true, false)}
	if o, why, _ = k.grade(ctx); o != report.Broken || !strings.Contains(why, "0/1 synced by ArgoCD itself on v3.5.1") {
		t.Errorf("grade with a trial not synced on TO = %s (%s)", o, why)
	}
}

// trial is a trial of a commit during a sync: during, B pushed while A
// synced; synced, B synced by ArgoCD itself.
func trial(during, synced bool) Trial {
	t := Trial{During: during, Observed: env.Observed{Held: synced}}
	if !synced {
		t.Seen = "timed out"
	}
	return t
}

func TestAutoSyncLines(t *testing.T) {
	log := `time="2026-11-28T11:00:01Z" level=info msg="Initiated automated sync to '1111'" application=argocd/during-sync
time="2026-11-28T11:00:02Z" level=info msg="Refreshing app status (controller refresh requested), level (2)" application=argocd/during-sync
time="2026-11-28T11:00:31Z" level=info msg="Skipping auto-sync: most recent sync already to 2222" application=argocd/during-sync
time="2026-11-28T11:00:31Z" level=info msg="Skipping auto-sync: application status is Synced" application=argocd/during-sync-other
time="2026-11-28T11:00:40Z" level=info msg="Already attempted sync: comparing synced revisions to [2222]" app-namespace=argocd app-qualified-name=argocd/during-sync application=during-sync
{"app-namespace":"argocd","application":"during-sync","level":"info","msg":"Skipping auto-sync: most recent sync already to [102aad678a07]","project":"default","time":"2026-11-28T11:15:57Z"}
{"app-namespace":"argocd","application":"during-sync-other","level":"info","msg":"Skipping auto-sync: another operation is in progress","project":"default","time":"2026-11-28T11:15:57Z"}`
	got := AutoSyncLines(log, "during-sync")
	if len(got) != 4 || !strings.Contains(got[0], "Initiated automated sync") || !strings.Contains(got[1], "most recent sync already") || !strings.Contains(got[2], "Already attempted") || !strings.Contains(got[3], "102aad678a07") {
		t.Errorf("AutoSyncLines = %q", got)
	}
	if m := logMessage(got[3]); m != `2026-11-28T11:15:57Z "Skipping auto-sync: most recent sync already to [102aad678a07]"` {
		t.Errorf("logMessage = %s", m)
	}
}

// DURING_SYNC's trials run on each release, each step named once; an
// Application that does not sync by itself gets none, and is told so.
func TestDuringSyncSteps(t *testing.T) {
	for _, tc := range []struct {
		apps    string
		webhook bool
		want    []string
	}{
		{"../../../suites/upgrade-check/during-sync-apps.yaml", false, []string{"trial 1 on v3.5.1: push commit A (a PreSync hook that runs 30s) to application during-sync's source",
			"observe trial 2 on v3.6.1: commit B synced by ArgoCD itself (no refresh asked for)", "push commit B while A syncs",
			"observe the source as before the trials synced by ArgoCD itself on v3.6.1"}},
		// WEBHOOK: a refresh after every push, each its own step
		{"../../../suites/upgrade-check/during-sync-apps.yaml", true, []string{
			"trial 2 on v3.6.1: push commit B while A syncs: then a git webhook's refresh of the application",
			"observe trial 2 on v3.6.1: commit B synced by ArgoCD itself (a webhook's refresh asked for after the push)",
			"push application during-sync's source as before the trials on v3.5.1: then a git webhook's refresh",
			"a removal: configmap during-sync/gitops-conformance-upgrade-check, made on v3.5.1, taken out to application during-sync's source on v3.6.1: then a git webhook's refresh"}},
		{"../spec/testdata/apps", false, []string{"DURING_SYNC: application chart-dir does not sync by itself: no trial on v3.6.1"}},
	} {
		s := &spec.Spec{From: catalog.MustRelease("v3.5.1"), To: catalog.MustRelease("v3.6.1"), DuringSync: 2, Webhook: tc.webhook, Apps: []spec.App{firstApp(t, tc.apps)}}
		sc := Feature(s, cellOf(s))
		if len(sc.Repeated) > 0 {
			t.Errorf("%s: step names taken twice: %q", tc.apps, sc.Repeated)
		}
		all := strings.Join(sc.Names(), "\n")
		for _, want := range tc.want {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no step %q in:\n%s", tc.apps, want, all)
			}
		}
	}
}

// firstApp is the first Application of the APPS file or directory path,
// its source read.
func firstApp(t *testing.T, path string) spec.App {
	t.Helper()
	apps, files, err := spec.ReadApps(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := appcell.Resolver{CacheDir: t.TempDir()}.Resolve(apps[0], files[0])
	if err != nil {
		t.Fatal(err)
	}
	return spec.App{Spec: apps[0], File: files[0], Source: src}
}

// cellOf is the cell of s's first Application, as the plan makes it.
func cellOf(s *spec.Spec) matrix.Cell {
	sc := matrix.Scenario{Name: spec.Scenario, Variants: []matrix.Variant{{Name: s.Apps[0].Name()}}}
	return matrix.Cell{Scenario: sc, Variant: sc.Variants[0], ArgoCD: s.From, Upgrades: []catalog.Release{s.To}}
}
