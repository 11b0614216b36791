package verdict

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/report"
)

func synced(release string, hooks ...appstate.Hook) *appstate.State {
	return &appstate.State{Release: release, Sync: "Synced", Health: "Healthy", Phase: "Succeeded", Hooks: hooks}
}

var gone = &Deletion{Gone: true}

func heldBy(why string) *Deletion { return &Deletion{Held: why} }

// cell is a reading as pkg/upgrade's cell fills one: FROM's state after
// its syncs is both its settled state and its baseline after a sync; TO
// has its state after its own refresh (settled) and after the syncs of the
// commits pushed.
func cell(from, to string, onFrom, refreshed, syncedTo *appstate.State) Reading {
	return Reading{
		From:   &Side{Release: from, Rendered: true, Settled: onFrom, Synced: onFrom, Fields: []string{}, Deletion: gone},
		To:     &Side{Release: to, Rendered: true, Settled: refreshed, Synced: syncedTo, Fields: []string{}, Deletion: gone, Wanted: "shown to prune, then shown OutOfSync"},
		States: "states.md", ChangesIn: ": render-diff.txt",
	}
}

func with(r Reading, f func(r *Reading)) Reading { f(&r); return r }

func TestGrade(t *testing.T) {
	job := appstate.Hook{Ref: "batch/Job ns/migrate", Type: "PostSync", Phase: "Succeeded"}
	held := &appstate.State{Release: "v2.14.3", Sync: "OutOfSync", Health: "Progressing", Phase: "Running", OutOfSync: []string{"ConfigMap ns/x"},
		Hooks: []appstate.Hook{{Ref: job.Ref, Type: "PostSync", Phase: "Running"}}}
	hooked := func(r Reading) Reading { r.Hooks = []string{job.Ref}; return r }
	for _, tc := range []struct {
		name string
		r    Reading
		want report.Outcome
		says string
	}{
		{"nothing changed", hooked(cell("a", "b", synced("a", job), synced("b", job), synced("b", job))),
			report.Safe, "a -> b: the same render (0 objects); sync Synced and health Healthy after b's controller compared it by itself; the same sync, health and hooks after the syncs of the commits pushed to git (shown to prune, then shown OutOfSync)"},
		{"a field of the render", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.Changes = []appstate.ObjectChange{{Ref: "ConfigMap ns/x", Fields: []appstate.FieldChange{{Path: ".data.k", From: `"1"`, To: `"2"`}}}}
		}), report.Changed, `ConfigMap ns/x: .data.k: "1" -> "2"`},
		{"held before, released after", hooked(cell("v2.14.3", "v2.14.4", held, synced("v2.14.4", job), synced("v2.14.4", job))),
			report.Changed, "operation Running -> Succeeded"},
		{"held on both (kyverno v2.14.3 -> v2.14.4, runs 20261127-064304, 20261127-071427)", with(hooked(cell("v2.14.3", "v2.14.4", held, held,
			&appstate.State{Release: "v2.14.4", Sync: "Synced", Health: "Healthy", Phase: "Running", Message: "waiting for deletion of batch/Job/kyverno-clean-reports"})), func(r *Reading) {
			r.From.Deletion, r.To.Deletion = heldBy("post-delete"), heldBy("post-delete")
		}), report.Broken, "on v2.14.4: the sync is still Running (held) (waiting for deletion of batch/Job/kyverno-clean-reports) (already so on v2.14.3)"},
		{"held after", hooked(cell("a", "b", synced("a", job), synced("b", job), held)), report.Broken, "the sync is still Running (held)"},
		{"a hook skipped", hooked(cell("a", "b", synced("a", job), synced("b", job), synced("b"))),
			report.Broken, "hook PostSync batch/Job ns/migrate, Succeeded on a, did not run"},
		{"a generated hook name is not compared", cell("a", "b", synced("a", job), synced("b"), synced("b")), report.Changed, "did not run"},
		{"deletion held", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) { r.To.Deletion = heldBy("finalizers resources-finalizer.argocd.argoproj.io") }),
			report.Broken, "on b: the cascading deletion was held: finalizers"},
		{"deletion held on both: broken still", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.From.Deletion, r.To.Deletion = heldBy("hook refused"), heldBy("hook refused")
		}), report.Broken, "on b: the cascading deletion was held: hook refused (already so on a)"},
		{"deletion held before, not after (argo-cd#27527's fix)", with(cell("v3.4.2", "v3.4.3", synced("v3.4.2"), synced("v3.4.3"), synced("v3.4.3")), func(r *Reading) { r.From.Deletion = heldBy("hook refused") }),
			report.Changed, "the cascading deletion, held on v3.4.2 (hook refused), goes through on v3.4.3"},
		{"the cascade leaves something else", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.To.Deletion = &Deletion{Gone: true, Left: "1 customresourcedefinition.apiextensions.k8s.io"}
		}), report.Changed, "what the cascading deletion left: none -> 1 customresourcedefinition.apiextensions.k8s.io; the cascade left 1 customresourcedefinition.apiextensions.k8s.io (states.md)"},
		{"the sync failed on FROM and not on TO: fixed", cell("a", "b", &appstate.State{Release: "a", Sync: "Unknown", Phase: "Error", Message: "InvalidSpecError"}, synced("b"), synced("b")),
			report.Changed, "operation Error -> Succeeded"},
		{"one resource more OutOfSync, and Degraded (knative-serving on v3.4.7 -> v3.5.1, run 20261127-061716)",
			cell("a", "b", &appstate.State{Release: "a", Sync: "OutOfSync", Health: "Healthy", Phase: "Succeeded", OutOfSync: []string{"MWC webhook"}},
				&appstate.State{Release: "b", Sync: "OutOfSync", Health: "Degraded", Phase: "Succeeded", OutOfSync: []string{"MWC webhook", "VWC validation"}},
				&appstate.State{Release: "b", Sync: "OutOfSync", Health: "Degraded", Phase: "Succeeded", OutOfSync: []string{"MWC webhook", "VWC validation"}}),
			report.Broken, "on b: OutOfSync after the sync: MWC webhook (already so on a); OutOfSync after the sync: VWC validation; health Degraded"},
		{"OutOfSync on both sides is broken still", cell("a", "b", &appstate.State{Release: "a", Sync: "OutOfSync", Phase: "Succeeded", OutOfSync: []string{"CRD x"}},
			&appstate.State{Release: "b", Sync: "OutOfSync", Phase: "Succeeded", OutOfSync: []string{"CRD x"}},
			&appstate.State{Release: "b", Sync: "OutOfSync", Phase: "Succeeded", OutOfSync: []string{"CRD x"}}),
			report.Broken, "on b: OutOfSync after the sync: CRD x (already so on a)"},
		{"a commit after the upgrade not acted on (argo-cd#27344's symptom)", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.To.Pushes = []string{"", "a change: configmap ns/m added, pushed to git, not synced by ArgoCD itself"}
		}), report.Broken, "on b: a change: configmap ns/m added, pushed to git, not synced by ArgoCD itself"},
		{"not acted on on either side", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.From.Pushes, r.To.Pushes = []string{"a change: m added, not shown OutOfSync"}, []string{"a change: m back, not shown OutOfSync"}
		}), report.Broken, "(a did not act on its commit either: a change: m added, not shown OutOfSync"},
		{"a field of the status gone (3.0: the resources' health, argo-cd#21532)", with(cell("v2.14.11", "v3.5.1", synced("v2.14.11"), synced("v3.5.1"), synced("v3.5.1")), func(r *Reading) {
			r.From.Fields = []string{"status.resources[].health.status", "status.resources[].health.message", "status.resources[].name", "status.conditions[].type"}
			r.To.Fields = []string{"status.resources[].name"}
		}), report.Changed, `v2.14.11 -> v3.5.1: every difference explained by ArgoCD's upgrade guides; explained: health-not-persisted (v3.0.0: resources' health out of the Application's status), kept as before by argocd-cmd-params-cm controller.resource.health.persist: "true"`},
		{"the same field gone where the upgrade crosses no 3.0: unexplained", with(cell("v3.0.0", "v3.5.1", synced("v3.0.0"), synced("v3.5.1"), synced("v3.5.1")), func(r *Reading) {
			r.From.Fields = []string{"status.resources[].health.status", "status.resources[].name"}
			r.To.Fields = []string{"status.resources[].name"}
		}), report.Changed, "v3.0.0 -> v3.5.1: unexplained: the Application's status no longer holds 1 field(s) it held on v3.0.0 (a tool reading the resource loses them): status.resources[].health.status"},
		{"3.0's tracking annotation explained, another field of the render not (argo-cd 2.14-3.0.md:241)", with(cell("v2.14.11", "v3.6.1", synced("v2.14.11"), synced("v3.6.1"), synced("v3.6.1")), func(r *Reading) {
			r.Changes = []appstate.ObjectChange{
				{Ref: "ConfigMap n/a", Fields: []appstate.FieldChange{{Path: ".metadata.annotations", To: `{"argocd.argoproj.io/tracking-id":"a:/ConfigMap:n/a"}`}, {Path: ".metadata.labels.app.kubernetes.io/instance", From: `"a"`}}},
				{Ref: "ConfigMap n/b", Fields: []appstate.FieldChange{{Path: ".metadata.annotations.argocd.argoproj.io/tracking-id", To: `"a:/ConfigMap:n/b"`}, {Path: ".data.k", From: `"1"`, To: `"2"`}}}}
		}), report.Changed, `v2.14.11 -> v3.6.1: unexplained: the render: 1 object(s) differ: ConfigMap n/b: .data.k: "1" -> "2"; explained: tracking-annotation (v3.0.0: resources tracked by annotation, not label), kept as before by argocd-cm application.resourceTrackingMethod: label`},
		{"an Endpoints no longer managed: BROKEN, explained by 3.0's default exclusions (argo-cd#21635)", with(cell("v2.14.11", "v3.6.1",
			&appstate.State{Release: "v2.14.11", Sync: "Synced", Health: "Healthy", Phase: "Succeeded", Managed: []string{"Service t/db", "Endpoints t/db"}},
			&appstate.State{Release: "v3.6.1", Sync: "Synced", Health: "Healthy", Phase: "Succeeded", Managed: []string{"Service t/db"},
				Conditions: []string{"ExcludedResourceWarning: Resource /Endpoints db is excluded in the settings"}}, synced("v3.6.1")), func(r *Reading) {
			r.To.InGit = []string{"Service t/db", "Endpoints t/db"}
		}), report.Broken, "ArgoCD no longer manages 1 object(s) still in git that it managed on v2.14.11: Endpoints t/db (ExcludedResourceWarning: Resource /Endpoints db is excluded in the settings); a change to one is not applied, and none is pruned (explained: default-resource-exclusions (v3.0.0: Endpoints, EndpointSlices, Leases excluded by default), kept as before by argocd-cm resource.exclusions without the kinds kept in git"},
		{"3.0's orphans: a removal not pruned, left behind, explained (run 20261202-154838)", with(cell("v2.14.11", "v3.6.1", synced("v2.14.11"), synced("v3.6.1"), synced("v3.6.1")), func(r *Reading) {
			r.To.Pushes = []string{"a removal: configmap conform-clean/gitops-conformance-upgrade-check, made on v2.14.11, taken out, pushed to git, not pruned by ArgoCD itself within 6m30s with no refresh asked for: still in the cluster, and the Application no longer lists it: left behind (ArgoCD does not count it as the Application's)"}
		}), report.Broken, "left behind (ArgoCD does not count it as the Application's) (explained: tracking-orphans (v3.0.0: an object removed from git before the first sync under annotation tracking is left behind), kept as before by argocd-cm application.resourceTrackingMethod: label)"},
		{"a CronJob Degraded once settled on 3.2: BROKEN, explained (3.1-3.2.md:64)", with(cell("v3.1.4", "v3.2.0", synced("v3.1.4"),
			&appstate.State{Release: "v3.2.0", Sync: "Synced", Health: "Degraded", Phase: "Succeeded", Unhealthy: []appstate.Health{{Ref: "batch/CronJob n/nightly", Status: "Degraded"}}}, nil), func(r *Reading) {
			r.To.Synced = nil
		}), report.Broken, "health Healthy on v3.1.4, Degraded on v3.2.0 (explained: cronjob-health (v3.2.0: a CronJob's health: Degraded when its last Job failed)"},
		{"a commit during a sync not synced on TO (argo-cd#27875)", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.From.Trials, r.To.Trials = &Trials{Tally: "2/2 synced by ArgoCD itself"}, &Trials{Problem: "a commit pushed while ArgoCD synced the one before (argo-cd#27875): 1/2", Tally: "1/2 synced by ArgoCD itself"}
		}), report.Broken, "argo-cd#27875): 1/2 (on a: 2/2 synced by ArgoCD itself)"},
		{"fixed on TO", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.From.Trials, r.To.Trials = &Trials{Problem: "0/1", Tally: "0/1 synced by ArgoCD itself"}, &Trials{Tally: "1/1 synced by ArgoCD itself"}
		}), report.Changed, "argo-cd#27875): 0/1 synced by ArgoCD itself on a, 1/1 synced by ArgoCD itself on b"},
		{"synced on both", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.From.Trials, r.To.Trials = &Trials{Tally: "1/1 synced by ArgoCD itself"}, &Trials{Tally: "1/1 synced by ArgoCD itself"}
		}), report.Safe, "commits pushed while a sync ran: 1/1 synced by ArgoCD itself on a, 1/1 synced by ArgoCD itself on b"},
		{"a deletion that could not be read is could not tell", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) {
			r.To.Deletion = &Deletion{Gone: true, Unread: []string{"configmap team/x: connection refused"}}
		}), report.Error, "could not tell: what the cascading deletion on b left: configmap team/x: connection refused"},
		{"a BROKEN found stays BROKEN when another part could not be read", with(cell("a", "b", synced("a"), synced("b"), held), func(r *Reading) {
			r.To.Deletion = &Deletion{Unread: []string{"the Application: connection refused"}}
		}), report.Broken, "; could not tell: what the cascading deletion on b left: the Application: connection refused"},
		{"a state the cell did not come to read", with(cell("a", "b", synced("a"), synced("b"), synced("b")), func(r *Reading) { r.To.Unread = "a state not read" }),
			report.Error, "could not tell: on b: a state not read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := Grade(tc.r)
			if got != tc.want || !strings.Contains(why, tc.says) {
				t.Errorf("Grade = %s (%s), want %s saying %q", got, why, tc.want, tc.says)
			}
		})
	}
}

// fleet is a reading as pkg/upgrade's fleet fills one in its render tier:
// each release's state once the fleet settled, nothing asked.
func fleet(a, b *appstate.State) Reading {
	r := Reading{By: "APPS"}
	if a != nil {
		r.From = &Side{Release: "v3.4.7", Rendered: true, Objects: 1, Settled: a, Fields: []string{}}
	}
	if b != nil {
		r.To = &Side{Release: "v3.5.1", Rendered: true, Objects: 1, Settled: b, Fields: []string{}}
	}
	return r
}

func state(sync, health string) *appstate.State { return &appstate.State{Sync: sync, Health: health} }

func TestGradeTheFleetsRenderTier(t *testing.T) {
	for _, c := range []struct {
		name string
		r    Reading
		want report.Outcome
		says string
	}{
		{"same", fleet(state("Synced", "Healthy"), state("Synced", "Healthy")), report.Safe, "the same render (1 objects); sync Synced and health Healthy"},
		{"never synced, the same", fleet(state("OutOfSync", "Missing"), state("OutOfSync", "Missing")), report.Safe, ""},
		{"unknown on TO", fleet(state("Synced", "Healthy"), state("Unknown", "Healthy")), report.Broken, "sync Synced on v3.4.7, Unknown on v3.5.1"},
		{"degraded on TO", fleet(state("Synced", "Healthy"), state("Synced", "Degraded")), report.Broken, "health Healthy on v3.4.7, Degraded on v3.5.1"},
		{"degraded on both", fleet(state("Synced", "Degraded"), state("Synced", "Degraded")), report.Safe, ""},
		{"a new error condition", fleet(state("Synced", "Healthy"), &appstate.State{Sync: "Synced", Health: "Healthy", Conditions: []string{"ComparisonError: x"}}), report.Broken, "condition ComparisonError: x"},
		{"gone on TO", fleet(state("Synced", "Healthy"), nil), report.Broken, "gone after the upgrade (made by APPS on v3.4.7)"},
		{"new on TO", fleet(nil, state("Synced", "Healthy")), report.Changed, "made on v3.5.1 only"},
		{"unread on FROM", with(fleet(state("", ""), state("Synced", "Healthy")), func(r *Reading) { r.From.Unread, r.From.Rendered = "the render: 500", false }), report.Error, "could not tell: on v3.4.7: the render: 500"},
		{"refused by FROM, rendered by TO", with(fleet(&appstate.State{Conditions: []string{"ComparisonError: cannot"}}, state("Synced", "Healthy")), func(r *Reading) {
			r.From.Unread, r.From.Rendered = "the render: 500", false
		}), report.Changed, "v3.5.1 renders it (1 objects), v3.4.7 did not"},
		{"TO renders it no more", with(fleet(state("Synced", "Healthy"), state("", "")), func(r *Reading) { r.To.Unread, r.To.Rendered = "the render: 500", false }), report.Broken, "v3.5.1 renders it no more"},
		{"a generated spec that differs", with(fleet(state("Synced", "Healthy"), state("Synced", "Healthy")), func(r *Reading) { r.By, r.Generated = "ApplicationSet s", ".spec.project" }),
			report.Changed, "ApplicationSet s generates it otherwise on v3.5.1: .spec.project"},
	} {
		if got, why := Grade(c.r); got != c.want || !strings.Contains(why, c.says) {
			t.Errorf("%s: %s (%s), want %s saying %q", c.name, got, why, c.want, c.says)
		}
	}
}

// The lifecycle tier: a sync asked on TO (and on FROM with LIFECYCLE=all),
// and TO's deletion (FROM's is never tried in the fleet).
func TestGradeTheFleetsLifecycleTier(t *testing.T) {
	ok := synced("")
	failed := &appstate.State{Sync: "OutOfSync", Health: "Healthy", Phase: "Failed", Message: "one or more objects failed to apply"}
	never := state("OutOfSync", "Missing")
	life := func(base *appstate.State, asked bool, to *appstate.State, d *Deletion) Reading {
		r := fleet(base, ok)
		if asked {
			r.From.Synced = base
		}
		r.To.Synced, r.To.Deletion = to, d
		return r
	}
	for _, c := range []struct {
		name        string
		r           Reading
		want        report.Outcome
		say, notSay string
	}{
		{"synced and deleted", life(never, false, ok, gone), report.Changed, "after its own refresh", ""},
		{"fails on TO, never asked on FROM", life(never, false, failed, gone), report.Broken, "was not asked to sync it", "already so"},
		{"fails on TO as on FROM", life(failed, true, failed, gone), report.Broken, "already so on v3.4.7", ""},
		{"fails on TO only", life(ok, true, failed, gone), report.Broken, "the sync ended Failed (one or more objects failed to apply)", "already so"},
		{"deletion held", life(ok, true, ok, heldBy("still there")), report.Broken, "ISOLATE=1 compares both", ""},
		{"sync still running", with(life(ok, true, ok, gone), func(r *Reading) { r.To.Waited = "the operation had not ended after 6m0s" }), report.Broken, "had not ended", ""},
		{"could not sync", with(life(ok, true, nil, nil), func(r *Reading) { r.To.SyncUnread = "conflict" }), report.Error, "could not tell: the sync asked on v3.5.1: conflict", ""},
		{"same after both syncs", life(ok, true, ok, gone), report.Safe, "the cascading deletion went through on v3.5.1", ""},
		{"otherwise after both syncs", life(ok, true, &appstate.State{Sync: "Synced", Health: "Healthy", Phase: "Succeeded", Hooks: []appstate.Hook{{Ref: "batch/Job n/new", Type: "PostSync", Phase: "Succeeded"}}}, gone),
			report.Changed, "after the syncs: hook", ""},
		{"a hook that ran on FROM and not on TO", with(life(&appstate.State{Release: "v3.4.7", Sync: "Synced", Health: "Healthy", Phase: "Succeeded", Hooks: []appstate.Hook{{Ref: "batch/Job n/migrate", Type: "PreSync", Phase: "Succeeded"}}}, true, ok, gone),
			func(r *Reading) { r.Hooks = []string{"batch/Job n/migrate"} }), report.Broken, "did not run", ""},
		{"worse once settled, fine after a sync asked", life(ok, true, ok, gone), report.Safe, "", ""},
	} {
		got, why := Grade(c.r)
		if got != c.want || !strings.Contains(why, c.say) || (c.notSay != "" && strings.Contains(why, c.notSay)) {
			t.Errorf("%s: %s (%s), want %s saying %q", c.name, got, why, c.want, c.say)
		}
	}
	// a sync asked on TO is the last word: a state worse once settled that
	// the sync brings back is a change, not a breakage
	r := life(ok, true, ok, gone)
	r.To.Settled = state("OutOfSync", "Healthy")
	if got, why := Grade(r); got != report.Changed || !strings.Contains(why, "after its own refresh: sync Synced -> OutOfSync") {
		t.Errorf("worse once settled, fine after a sync asked: %s (%s), want CHANGED", got, why)
	}
}

// The verdict is a leaf: it imports nothing of make upgrade-check's cell
// or fleet (they fill a Reading; it grades it), only the catalog of
// behaviour changes (a leaf too) that explains what it finds.
func TestVerdictIsALeaf(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("the package's files: %v %v", files, err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(path, "github.com/gitops-conformance/suite/pkg/upgrade") && path != "github.com/gitops-conformance/suite/pkg/upgrade/changes" {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

// Judge says a CHANGED is unexplained unless a change of the catalog
// explains every difference it found.
func TestJudgeSaysWhatIsUnexplained(t *testing.T) {
	tracked := appstate.FieldChange{Path: ".metadata.annotations.argocd.argoproj.io/tracking-id", To: `"a:/ConfigMap:n/a"`}
	data := appstate.FieldChange{Path: ".data.k", From: `"1"`, To: `"2"`}
	for _, c := range []struct {
		fields      []appstate.FieldChange
		unexplained bool
	}{{[]appstate.FieldChange{tracked}, false}, {[]appstate.FieldChange{tracked, data}, true}} {
		r := with(cell("v2.14.11", "v3.6.1", synced("v2.14.11"), synced("v3.6.1"), synced("v3.6.1")), func(r *Reading) {
			r.Changes = []appstate.ObjectChange{{Ref: "ConfigMap n/a", Fields: c.fields}}
		})
		if v := Judge(r); v.Outcome != report.Changed || v.Unexplained != c.unexplained || !slices.Equal(v.Explained, []string{"tracking-annotation"}) {
			t.Errorf("%d field(s): %+v, want CHANGED, unexplained %v, explained by tracking-annotation", len(c.fields), v, c.unexplained)
		}
	}
}
