package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/cell"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
	"github.com/gitops-conformance/suite/pkg/upgrade/verdict"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// What the fleet read of an Application reaches the verdict: its render,
// its state once settled, its status's fields, the spec its generator made,
// and the lifecycle tier's sync and deletion.
func TestTheFleetsReadingsReachTheVerdict(t *testing.T) {
	cm := func(v string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "n"}, "data": map[string]any{"k": v}}}
	}
	rd := func(sync, health, v string) *read {
		return &read{state: appstate.State{Sync: sync, Health: health}, render: &argocd.Render{Objects: []*unstructured.Unstructured{cm(v)}}, by: "APPS", spec: map[string]any{"project": "p"}}
	}
	grade := func(f *fleet) (report.Outcome, string) { return verdict.Grade(f.reading("x")) }
	fl := func(a, b *read) *fleet {
		f := &fleet{from: catalog.MustRelease("v3.4.7"), to: catalog.MustRelease("v3.5.1")}
		if a != nil {
			f.app("x").read["v3.4.7"] = a
		}
		if b != nil {
			f.app("x").read["v3.5.1"] = b
		}
		return f
	}
	for _, c := range []struct {
		name string
		f    *fleet
		want report.Outcome
		says string
	}{
		{"same", fl(rd("Synced", "Healthy", "1"), rd("Synced", "Healthy", "1")), report.Safe, "the same render (1 objects)"},
		{"render differs", fl(rd("Synced", "Healthy", "1"), rd("Synced", "Healthy", "2")), report.Changed, `ConfigMap n/c: .data.k: "1" -> "2"`},
		{"degraded on TO", fl(rd("Synced", "Healthy", "1"), rd("Synced", "Degraded", "1")), report.Broken, "health Healthy on v3.4.7, Degraded on v3.5.1"},
		{"gone on TO", fl(rd("Synced", "Healthy", "1"), nil), report.Broken, "gone after the upgrade (made by APPS on v3.4.7)"},
		{"new on TO", fl(nil, rd("Synced", "Healthy", "1")), report.Changed, "made on v3.5.1 only (by APPS)"},
		{"unread on FROM", fl(&read{unread: "the render: 500"}, rd("Synced", "Healthy", "1")), report.Error, "could not tell: on v3.4.7: the render: 500"},
		{"refused by FROM, rendered by TO", fl(&read{unread: "the render: 500", state: appstate.State{Conditions: []string{"ComparisonError: cannot"}}}, rd("Synced", "Healthy", "1")), report.Changed, "v3.5.1 renders it (1 objects)"},
	} {
		if got, why := grade(c.f); got != c.want || !strings.Contains(why, c.says) {
			t.Errorf("%s: %s (%s), want %s saying %q", c.name, got, why, c.want, c.says)
		}
	}
	a, b := rd("Synced", "Healthy", "1"), rd("Synced", "Healthy", "1")
	a.by, b.by, b.spec = "ApplicationSet s", "ApplicationSet s", map[string]any{"project": "q"}
	if got, why := grade(fl(a, b)); got != report.Changed || !strings.Contains(why, "ApplicationSet s generates it otherwise on v3.5.1") {
		t.Errorf("a generated spec that differs: %s (%s), want CHANGED saying so", got, why)
	}
	// the lifecycle tier: FROM read after its sync (LIFECYCLE=all), TO's sync and deletion
	synced := appstate.State{Sync: "Synced", Health: "Healthy", Phase: "Succeeded"}
	failed := appstate.State{Sync: "OutOfSync", Health: "Healthy", Phase: "Failed", Message: "one or more objects failed to apply"}
	f := fl(&read{state: synced, render: &argocd.Render{}, by: "APPS"}, &read{state: synced, render: &argocd.Render{}, by: "APPS"})
	x := f.app("x")
	x.lived["v3.4.7"], x.lived["v3.5.1"] = &lived{state: synced}, &lived{state: failed}
	x.deleted = &cell.Deletion{Read: true, Gone: true}
	if got, why := grade(f); got != report.Broken || !strings.Contains(why, "the sync ended Failed (one or more objects failed to apply)") || strings.Contains(why, "already so") {
		t.Errorf("fails on TO only: %s (%s)", got, why)
	}
	x.lived["v3.5.1"] = &lived{state: synced}
	x.deleted = &cell.Deletion{Read: true, Held: "still there"}
	if got, why := grade(f); got != report.Broken || !strings.Contains(why, "the cascading deletion was held: still there (v3.4.7's is not tried in the fleet") {
		t.Errorf("deletion held: %s (%s)", got, why)
	}
	x.deleted = &cell.Deletion{Read: true, Gone: true, Unread: []string{"configmap n/c: connection refused"}}
	if got, why := grade(f); got != report.Error || !strings.Contains(why, "could not tell: what the cascading deletion on v3.5.1 left: configmap n/c: connection refused") {
		t.Errorf("a deletion not read: %s (%s), want ERROR (could not tell)", got, why)
	}
	x.lived["v3.5.1"] = &lived{unread: "the sync asked: conflict"}
	x.deleted = &cell.Deletion{Read: true, Gone: true}
	if got, why := grade(f); got != report.Error || !strings.Contains(why, "could not tell") {
		t.Errorf("could not sync: %s (%s)", got, why)
	}
}

// One Application read alike by a cell and by the fleet (the same render
// and states on both releases, the same sync asked on TO, the same
// deletion on TO) gets one verdict: the parts both read are graded by one
// rule (verdict.Grade).
func TestACellAndTheFleetGradeAlike(t *testing.T) {
	from, to := catalog.MustRelease("v3.4.7"), catalog.MustRelease("v3.5.1")
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c", "namespace": "n"}}}
	ok := appstate.State{Sync: "Synced", Health: "Healthy", Phase: "Succeeded"}
	failed := appstate.State{Sync: "OutOfSync", Health: "Healthy", Phase: "Failed", Message: "one or more objects failed to apply"}
	degraded := appstate.State{Sync: "Synced", Health: "Degraded", Phase: "Succeeded"}
	for _, c := range []struct {
		name                      string
		onFrom, refreshed, synced appstate.State
		fieldsTo                  []string
		delTo                     cell.Deletion
		want                      report.Outcome
	}{
		{"the same", ok, ok, ok, []string{"status.sync.status"}, cell.Deletion{Read: true, Gone: true}, report.Safe},
		{"a sync that fails on TO", ok, ok, failed, []string{"status.sync.status"}, cell.Deletion{Read: true, Gone: true}, report.Broken},
		{"already failing on FROM", failed, failed, failed, []string{"status.sync.status"}, cell.Deletion{Read: true, Gone: true}, report.Broken},
		{"degraded once settled, fixed by the sync", ok, degraded, ok, []string{"status.sync.status"}, cell.Deletion{Read: true, Gone: true}, report.Changed},
		{"a field of the status gone", ok, ok, ok, []string{}, cell.Deletion{Read: true, Gone: true}, report.Changed},
		{"the deletion held on TO", ok, ok, ok, []string{"status.sync.status"}, cell.Deletion{Read: true, Held: "finalizers x"}, report.Broken},
		{"the deletion not read on TO", ok, ok, ok, []string{"status.sync.status"}, cell.Deletion{Read: true, Gone: true, Unread: []string{"configmap n/c: timeout"}}, report.Error},
	} {
		onFrom, refreshed, synced := c.onFrom, c.refreshed, c.synced
		k := cell.Observed{From: from, To: to, OnFrom: &onFrom, Refreshed: &refreshed, Synced: &synced,
			RenderFrom: &argocd.Render{Objects: []*unstructured.Unstructured{cm}}, RenderTo: &argocd.Render{Objects: []*unstructured.Unstructured{cm}},
			FieldsFrom: []string{"status.sync.status"}, FieldsTo: c.fieldsTo, DelTo: c.delTo}
		a := record{
			read: map[string]*read{
				"v3.4.7": {state: c.onFrom, render: &argocd.Render{Objects: []*unstructured.Unstructured{cm}}, fields: []string{"status.sync.status"}, by: "APPS"},
				"v3.5.1": {state: c.refreshed, render: &argocd.Render{Objects: []*unstructured.Unstructured{cm}}, fields: c.fieldsTo, by: "APPS"}},
			lived:   map[string]*lived{"v3.4.7": {state: c.onFrom}, "v3.5.1": {state: c.synced}},
			deleted: &c.delTo}
		// the cell tries FROM's deletion too: the fleet never does; the same part both read is TO's
		k.DelFrom = cell.Deletion{Read: true, Gone: true}
		oc, whyCell := verdict.Grade(k.Reading())
		of, whyFleet := verdict.Grade(a.reading(from.String(), to.String()))
		if oc != c.want || of != c.want {
			t.Errorf("%s: the cell %s (%s), the fleet %s (%s); want %s from both", c.name, oc, whyCell, of, whyFleet, c.want)
		}
	}
}

func writeFile(p string, b []byte) error { return os.WriteFile(p, b, 0o644) }

func TestExpandMakesACellPerApplication(t *testing.T) {
	dir := t.TempDir()
	if err := writeFile(filepath.Join(dir, FleetFile), []byte(`[{"name":"a","outcome":"SAFE","reason":"same","evidence":"apps/a","by":"APPS"},
{"name":"b","outcome":"CHANGED","reason":"render","evidence":"apps/b","by":"ApplicationSet s","explained":["tracking-annotation"]}]`)); err != nil {
		t.Fatal(err)
	}
	s := &spec.Spec{Expect: map[string]report.Outcome{"b": report.Changed}, ExpectWhy: "measured", Refused: []string{"ApplicationSet p: its pullRequest generator"}}
	rc := report.Cell{Scenario: spec.Scenario, Variant: FleetVariant, ArgoCD: "v3.4.7", Outcome: report.Changed, Evidence: "cells/x"}
	cells, notes := expand(s, rc, dir)
	if len(cells) != 2 || cells[0].Variant != "a" || cells[0].Expected != report.Safe || cells[1].Expected != report.Changed || cells[1].Evidence != "cells/x/apps/b" {
		t.Fatalf("expand = %+v", cells)
	}
	if len(cells[1].Explained) != 1 || cells[1].Explained[0] != "tracking-annotation" || cells[0].Explained != nil {
		t.Errorf("the changes each verdict names: a %q, b %q", cells[0].Explained, cells[1].Explained)
	}
	if len(cells[1].Observations) != 1 || !strings.Contains(cells[1].Observations[0], "ApplicationSet s") {
		t.Errorf("b's observations %q do not say what made it", cells[1].Observations)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "pullRequest") {
		t.Errorf("notes = %q", notes)
	}
	s.Others = []string{"guard", "workloads"}
	if _, notes := expand(s, rc, dir); len(notes) != 3 || !strings.Contains(notes[2], "guard, workloads") {
		t.Errorf("a shard's notes = %q, want the other shards' named", notes)
	}
	if err := writeFile(filepath.Join(dir, FleetFile), []byte(`[{"name":"a","evidence":"apps/a","by":"APPS"}]`)); err != nil {
		t.Fatal(err)
	}
	broken := rc
	broken.Outcome, broken.Reason = report.Broken, "the upgrade did not finish"
	if cells, _ := expand(s, broken, dir); len(cells) != 1 || cells[0].Outcome != report.Broken || !strings.Contains(cells[0].Reason, "the upgrade did not finish") {
		t.Errorf("a fleet ended before its verdicts: %+v, want a BROKEN with the fleet's reason", cells)
	}
	if cells, _ := expand(s, rc, t.TempDir()); cells != nil {
		t.Errorf("no fleet.json: %+v, want the fleet cell kept", cells)
	}
}

func TestSharedNamesBothOwnersOfOneObject(t *testing.T) {
	obj := func(kind, ns, name string, hook bool) *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}}}
		if ns != "" {
			o.SetNamespace(ns)
		}
		if hook {
			o.SetAnnotations(map[string]string{"argocd.argoproj.io/hook": "PreSync"})
		}
		return o
	}
	rd := func(dest string, objs ...*unstructured.Unstructured) *read {
		return &read{render: &argocd.Render{Objects: objs}, spec: map[string]any{"destination": map[string]any{"namespace": dest}}}
	}
	got := shared(map[string]*read{
		"a": rd("team", obj("ConfigMap", "", "settings", false), obj("ClusterRole", "", "reader", false), obj("Job", "", "migrate", true)),
		"b": rd("team", obj("ConfigMap", "team", "settings", false), obj("Job", "team", "migrate", true)),
		"c": rd("other", obj("ConfigMap", "", "settings", false), obj("ClusterRole", "", "reader", false)),
	})
	if len(got["a"]) != 2 || got["a"][0] != "ClusterRole reader (also c)" || got["a"][1] != "ConfigMap team/settings (also b)" {
		t.Errorf("a: %q", got["a"])
	}
	if len(got["b"]) != 1 || len(got["c"]) != 1 {
		t.Errorf("b: %q, c: %q (hooks and other namespaces are not shared)", got["b"], got["c"])
	}
}

func TestWebhookRejectionsNameBothApplications(t *testing.T) {
	obj := func(kind, ns, name string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "metadata": map[string]any{"name": name}}}
		if ns != "" {
			o.SetNamespace(ns)
		}
		return o
	}
	rd := func(dest string, objs ...*unstructured.Unstructured) *read {
		return &read{render: &argocd.Render{Objects: objs}, spec: map[string]any{"destination": map[string]any{"namespace": dest}}}
	}
	f := &fleet{to: catalog.MustRelease("v3.5.1")}
	onTo := map[string]*read{
		"policy": rd("kyverno", obj("Deployment", "", "kyverno"), obj("ValidatingWebhookConfiguration", "", "kyverno-policy")),
		"web":    rd("web", obj("Deployment", "", "frontend")),
		"other":  rd("jobs", obj("ConfigMap", "", "c")),
	}
	for n, rd := range onTo {
		f.app(n).read["v3.5.1"] = rd
	}
	live := []check.Webhook{{Config: "validatingwebhookconfiguration", ConfigName: "kyverno-policy", Name: "validate.kyverno.svc"},
		{Config: "mutatingwebhookconfiguration", ConfigName: "runtime", Name: "mutate.kyverno.svc", ClientConfig: check.WebhookClient{Service: &check.WebhookService{Namespace: "kyverno", Name: "svc"}}}}
	if v := ownerOf(f.readOn("v3.5.1"), "web", "frontend-5d9c7"); v != "web" {
		t.Errorf("ownerOf(a ReplicaSet of web's Deployment) = %q", v)
	}
	if v := ownerOf(f.readOn("v3.5.1"), "jobs", "anything"); v != "other" {
		t.Errorf("ownerOf(the one Application in the namespace) = %q", v)
	}
	if cfg, o := webhookOwner(onTo, "validate.kyverno.svc", live); o != "policy" || cfg != "validatingwebhookconfiguration/kyverno-policy" {
		t.Errorf("webhookOwner(rendered) = %q, %q", cfg, o)
	}
	if _, o := webhookOwner(onTo, "mutate.kyverno.svc", live); o != "policy" {
		t.Errorf("webhookOwner(registered at run time, its Service in policy's namespace) = %q", o)
	}
	if cfg, o := webhookOwner(onTo, "gone.example", live); cfg != "" || o != "" {
		t.Errorf("webhookOwner(no such webhook) = %q, %q", cfg, o)
	}
	lines := refusedLines([]rejection{{webhook: "validate.kyverno.svc", config: "validatingwebhookconfiguration/kyverno-policy", owner: "policy", victim: "web", what: "ReplicaSet web/frontend-5d9c7: denied", onTo: true}}, "v3.4.7", "v3.5.1")
	if len(lines["web"]) != 1 || !strings.Contains(lines["web"][0], "Application policy's webhook") || len(lines["policy"]) != 1 || !strings.Contains(lines["policy"][0], "refused Application web on v3.5.1") {
		t.Errorf("refusedLines = %q", lines)
	}
	if m := webhookSaid.FindStringSubmatch(`Error creating: admission webhook "validate.kyverno.svc" denied the request: no`); m == nil || m[2] != "validate.kyverno.svc" {
		t.Errorf("webhookSaid = %q", m)
	}
}

// HEALTH_WINDOW holds from the health's last transition where ArgoCD writes
// one, from when the fleet first saw it so where it does not (2.14), and
// never from before the upgrade on TO; a change starts it again.
func TestHealthHeldSinceItsLastChange(t *testing.T) {
	app := func(status, at string) map[string]any {
		h := map[string]any{"status": status}
		if at != "" {
			h["lastTransitionTime"] = at
		}
		return map[string]any{"status": map[string]any{"health": h}}
	}
	ago := time.Now().Add(-10 * time.Minute).UTC().Truncate(time.Second)
	if h := (heldHealth{}).next(app("Healthy", ago.Format(time.RFC3339)), time.Time{}); !h.since.Equal(ago) {
		t.Errorf("3.x: held since %s, want its lastTransitionTime %s", h.since, ago)
	}
	h := (heldHealth{}).next(app("Healthy", ""), time.Time{})
	if time.Since(h.since) > time.Second {
		t.Errorf("2.14: held since %s, want since first seen", h.since)
	}
	upgraded := time.Now().Add(-time.Minute)
	if h := (heldHealth{}).next(app("Healthy", ago.Format(time.RFC3339)), upgraded); !h.since.Equal(upgraded) {
		t.Errorf("on TO: held since %s, want since the upgrade %s", h.since, upgraded)
	}
	old := heldHealth{status: "Healthy", since: ago}
	if h := old.next(app("Healthy", ""), time.Time{}); !h.since.Equal(ago) {
		t.Errorf("unchanged: held since %s, want %s", h.since, ago)
	}
	if h := old.next(app("Degraded", ""), time.Time{}); h.status != "Degraded" || time.Since(h.since) > time.Second {
		t.Errorf("changed: %+v, want Degraded since now", h)
	}
}
