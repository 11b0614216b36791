package upgrade

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/step"
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

func TestReadAndResolveApps(t *testing.T) {
	apps, files, err := ReadApps("testdata/apps")
	if err != nil {
		t.Fatal(err)
	}
	if len(apps) != 2 || apps[0].Name != "chart-dir" || apps[1].Name != "plain" {
		t.Fatalf("ReadApps: %d apps, want chart-dir and plain (the ConfigMap passed over)", len(apps))
	}
	r := appcell.Resolver{CacheDir: t.TempDir()}
	chart, err := r.Resolve(apps[0], files[0])
	if err != nil {
		t.Fatal(err)
	}
	if chart.Chart == nil || chart.Chart.Name != "demo" || chart.Kind() != "Helm chart" {
		t.Errorf("chart-dir: %+v, want the chart demo", chart)
	}
	plain, err := r.Resolve(apps[1], files[1])
	if err != nil {
		t.Fatal(err)
	}
	if plain.Chart != nil || plain.Files["cm.yaml"] == "" || plain.Kind() != "directory of manifests" {
		t.Errorf("plain: %+v, want the directory's cm.yaml", plain)
	}
	if imgs, _, err := annotations("", apps[0]); err != nil || len(imgs) != 1 || imgs[0] != "example/app:v1" {
		t.Errorf("annotations: %v, %v", imgs, err)
	}
}

func TestRemoteSourcesSayHowToPointAtACopy(t *testing.T) {
	apps, files, err := ReadApps("testdata/remote.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"needs the online mode", "is a git repository; clone it"} {
		_, err := appcell.Resolver{CacheDir: t.TempDir()}.Resolve(apps[i], files[i])
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "spec.source.repoURL at a local copy") {
			t.Errorf("%s: %v, want one line saying %q and how to point it at a local copy", apps[i].Name, err, want)
		}
	}
}

// A cell's steps name themselves once each, and the verdict comes after
// both deletions.
func TestCellSteps(t *testing.T) {
	s := &Spec{From: catalog.MustRelease("v3.4.7"), To: catalog.MustRelease("v3.5.1"), Apps: []App{firstApp(t, "testdata/apps")}}
	data, code := s.Plan()
	c := matrix.Cell{Scenario: data.Scenarios[0], Variant: data.Scenarios[0].Variants[0], ArgoCD: s.From, Upgrades: []catalog.Release{s.To}}
	sc := code[Scenario].Feature(c)
	if len(sc.Repeated) > 0 {
		t.Errorf("step names taken twice: %q", sc.Repeated)
	}
	var names []string
	for _, st := range sc.Steps {
		names = append(names, st.Name())
	}
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

// METHOD and ARGOCD_CMD_PARAMS as a user gives them: a method the check
// does not know is one line naming those it does; the settings file is
// read as ARGOCD_CM's is.
func TestResolveMethodAndCmdParams(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	params := filepath.Join(dir, "params.yaml")
	if err := os.WriteFile(params, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cmd-params-cm}\ndata:\n  controller.diff.server.side: \"true\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := appcell.Where{CacheDir: t.TempDir()}
	o := Options{From: "v3.4.7", To: "v3.5.1", Apps: "../../suites/upgrade-check/blocking-webhook-apps.yaml", Method: "client-side", ArgoCDCmdParams: params}
	s, err := o.Resolve(context.Background(), cat, w)
	if err != nil {
		t.Fatal(err)
	}
	if s.Method != argocd.ClientSide || s.ArgoCDCmdParams["controller.diff.server.side"] != "true" {
		t.Errorf("method %q, params %v", s.Method, s.ArgoCDCmdParams)
	}
	if !strings.Contains(s.Command, "METHOD=client-side") || !strings.Contains(s.Command, "ARGOCD_CMD_PARAMS=") {
		t.Errorf("the replay command lacks METHOD or ARGOCD_CMD_PARAMS: %s", s.Command)
	}
	o.SelfSyncOptions = "ServerSideApply=true"
	if _, err := o.Resolve(context.Background(), cat, w); err == nil || !strings.Contains(err.Error(), "only for METHOD=self-managed") {
		t.Errorf("sync options for ArgoCD's own Application with another method: %v", err)
	}
	o.Method, o.SelfSyncOptions = "self-managed", "ServerSideApply=true, Replace=false"
	if s, err = o.Resolve(context.Background(), cat, w); err != nil || !slices.Equal(s.SelfSyncOptions, []string{"ServerSideApply=true", "Replace=false"}) ||
		!strings.Contains(s.MethodSaid(), "sync options ServerSideApply=true,Replace=false") {
		t.Errorf("self-managed: %v %+v", err, s)
	}
	o.Method, o.SelfSyncOptions = "helm-upgrade", ""
	if _, err := o.Resolve(context.Background(), cat, w); err == nil || !strings.Contains(err.Error(), "METHOD") || !strings.Contains(err.Error(), "server-side, client-side, self-managed") {
		t.Errorf("an unknown method: %v", err)
	}
}

// METRICS as a user gives it: empty is the catalog's metrics-server, which
// the plan names, prebuilds and each cell installs before its Application;
// none is none; anything else is one line naming the choices, before
// anything is made.
func TestResolveMetrics(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	w := appcell.Where{CacheDir: t.TempDir()}
	o := Options{From: "v3.4.7", To: "v3.5.1", Apps: "../../suites/upgrade-check/smoke-apps.yaml"}
	s, err := o.Resolve(context.Background(), cat, w)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Metrics.On() || s.Metrics.Version != "v0.9.0" || strings.Contains(s.Command, "METRICS") {
		t.Errorf("METRICS empty: %+v, command %s", s.Metrics, s.Command)
	}
	data, code := s.Plan()
	sc := data.Scenarios[0]
	if !strings.Contains(sc.Summary, "On a cluster with metrics-server v0.9.0,") || !slices.Equal(sc.Builds, []string{"metrics-server@v0.9.0"}) {
		t.Errorf("summary %q, builds %q", sc.Summary, sc.Builds)
	}
	c := matrix.Cell{Scenario: sc, Variant: sc.Variants[0], ArgoCD: s.From, Upgrades: []catalog.Release{s.To}}
	names := stepNames(code[Scenario].Feature(c))
	install, create := slices.Index(names, "the cluster's metrics-server v0.9.0"), slices.IndexFunc(names, func(n string) bool { return strings.HasPrefix(n, "create application") })
	if install < 0 || create < 0 || install > create {
		t.Errorf("metrics-server (step %d) not installed before the Application is created (step %d):\n%s", install, create, strings.Join(names, "\n"))
	}

	o.Metrics = "none"
	if s, err = o.Resolve(context.Background(), cat, w); err != nil {
		t.Fatal(err)
	}
	data, code = s.Plan()
	sc = data.Scenarios[0]
	if s.Metrics.On() || !strings.Contains(s.Command, "METRICS=none") || len(sc.Builds) > 0 || !strings.Contains(sc.Summary, "no metrics-server (METRICS=none)") {
		t.Errorf("METRICS=none: %+v, command %s, builds %q, summary %q", s.Metrics, s.Command, sc.Builds, sc.Summary)
	}
	c = matrix.Cell{Scenario: sc, Variant: sc.Variants[0], ArgoCD: s.From, Upgrades: []catalog.Release{s.To}}
	if names := stepNames(code[Scenario].Feature(c)); !slices.Contains(names, "the cluster's metrics-server: none (METRICS=none)") {
		t.Errorf("METRICS=none: no step saying so:\n%s", strings.Join(names, "\n"))
	}

	o.Metrics = "yes"
	if _, err := o.Resolve(context.Background(), cat, w); err == nil || !strings.HasPrefix(err.Error(), `METRICS "yes": want none`) {
		t.Errorf("METRICS=yes: %v", err)
	}
}

func stepNames(sc step.Scenario) []string {
	var names []string
	for _, st := range sc.Steps {
		names = append(names, st.Name())
	}
	return names
}

// An object of the render that could not be read after a cascading
// deletion is kept as such: the cell could not tell what the cascade left,
// and says which (never "gone").
func TestAnUnreadObjectIsCouldNotTell(t *testing.T) {
	st := &appstate.State{Release: "v3.4.7", Sync: "Synced", Health: "Healthy", Phase: "Succeeded"}
	k := &cell{from: catalog.MustRelease("v3.4.7"), to: catalog.MustRelease("v3.5.1"), onFrom: st, refreshed: st, synced: st,
		renderFrom: &argocd.Render{}, renderTo: &argocd.Render{}, fieldsFrom: []string{"status.sync.status"}, fieldsTo: []string{"status.sync.status"},
		delFrom: Deletion{Read: true, Gone: true}, delTo: Deletion{Read: true, Gone: true, Unread: []string{"configmap team/x: connection refused"}}}
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
	k := &cell{from: catalog.MustRelease("v2.14.11"), to: catalog.MustRelease("v3.5.1"), onFrom: st, refreshed: st, synced: st,
		renderFrom: &argocd.Render{}, renderTo: &argocd.Render{},
		fieldsFrom: []string{"status.resources[].health.status", "status.sync.status"}, fieldsTo: []string{"status.sync.status"},
		added:   Pushed{What: "a change: m added", Wanted: "synced by ArgoCD itself", Observed: env.Observed{Seen: "timed out"}},
		change:  Pushed{What: "a change: m back", Wanted: "synced by ArgoCD itself", Observed: env.Observed{Seen: "timed out"}},
		delFrom: Deletion{Read: true, Gone: true}, delTo: Deletion{Read: true, Gone: true}}
	ctx, _ := lifecycle.WithCell(context.Background(), t.TempDir())
	o, why, err := k.grade(ctx)
	if err != nil || o != report.Broken || !strings.Contains(why, "v2.14.11 did not act on its commit either") {
		t.Errorf("grade = %s (%s) %v", o, why, err)
	}
	k.added.Held, k.change.Held = true, true
	if o, why, _ = k.grade(ctx); o != report.Changed || !strings.Contains(why, "status.resources[].health.status") {
		t.Errorf("grade = %s (%s)", o, why)
	}
	// CHANGE's revert and DURING_SYNC's trials reach it too (run
	// 20261128-105941 graded SAFE with 0/3 on v3.6.1: they did not)
	k.revert = Pushed{What: "CHANGE's x reverted", Wanted: "synced by ArgoCD itself", Observed: env.Observed{Seen: "timed out"}}
	if o, why, _ = k.grade(ctx); o != report.Broken || !strings.Contains(why, "CHANGE's x reverted") {
		t.Errorf("grade with the revert not acted on = %s (%s)", o, why)
	}
	k.revert.Held = true
	k.duringFrom, k.duringTo = Trials{trial(true, true)}, Trials{trial(true, false)}
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

func TestKeptAnnotations(t *testing.T) {
	got := kept(map[string]string{"argocd.argoproj.io/manifest-generate-paths": ".", "argocd.argoproj.io/refresh": "hard",
		"kubectl.kubernetes.io/last-applied-configuration": "{}", ImagesAnnotation: "x"})
	if len(got) != 1 || got["argocd.argoproj.io/manifest-generate-paths"] != "." {
		t.Errorf("kept = %v", got)
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
		{"../../suites/upgrade-check/during-sync-apps.yaml", false, []string{"trial 1 on v3.5.1: push commit A (a PreSync hook that runs 30s) to application during-sync's source",
			"observe trial 2 on v3.6.1: commit B synced by ArgoCD itself (no refresh asked for)", "push commit B while A syncs",
			"observe the source as before the trials synced by ArgoCD itself on v3.6.1"}},
		// WEBHOOK: a refresh after every push, each its own step
		{"../../suites/upgrade-check/during-sync-apps.yaml", true, []string{
			"trial 2 on v3.6.1: push commit B while A syncs: then a git webhook's refresh of the application",
			"observe trial 2 on v3.6.1: commit B synced by ArgoCD itself (a webhook's refresh asked for after the push)",
			"push application during-sync's source as before the trials on v3.5.1: then a git webhook's refresh",
			"a removal: configmap during-sync/gitops-conformance-upgrade-check, made on v3.5.1, taken out to application during-sync's source on v3.6.1: then a git webhook's refresh"}},
		{"testdata/apps", false, []string{"DURING_SYNC: application chart-dir does not sync by itself: no trial on v3.6.1"}},
	} {
		s := &Spec{From: catalog.MustRelease("v3.5.1"), To: catalog.MustRelease("v3.6.1"), DuringSync: 2, Webhook: tc.webhook, Apps: []App{firstApp(t, tc.apps)}}
		data, code := s.Plan()
		sc := code[Scenario].Feature(matrix.Cell{Scenario: data.Scenarios[0], Variant: data.Scenarios[0].Variants[0], ArgoCD: s.From, Upgrades: []catalog.Release{s.To}})
		if len(sc.Repeated) > 0 {
			t.Errorf("%s: step names taken twice: %q", tc.apps, sc.Repeated)
		}
		var names []string
		for _, st := range sc.Steps {
			names = append(names, st.Name())
		}
		all := strings.Join(names, "\n")
		for _, want := range tc.want {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no step %q in:\n%s", tc.apps, want, all)
			}
		}
	}
}

// CHANGE's patch applies as git apply does; one that does not apply is
// refused before anything runs, naming the Application.
func TestChangePatch(t *testing.T) {
	files := map[string]string{"values.yaml": "replicas: 1\nlevel: info\n", "templates/cm.yaml": "kind: ConfigMap\n"}
	p := Patch{File: "change.patch", Diff: `diff --git a/values.yaml b/values.yaml
--- a/values.yaml
+++ b/values.yaml
@@ -1,2 +1,2 @@
 replicas: 1
-level: info
+level: debug
diff --git a/templates/extra.yaml b/templates/extra.yaml
new file mode 100644
--- /dev/null
+++ b/templates/extra.yaml
@@ -0,0 +1 @@
+kind: Secret
`}
	got, err := p.Apply(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	if got["values.yaml"] != "replicas: 1\nlevel: debug\n" || got["templates/extra.yaml"] != "kind: Secret\n" || got["templates/cm.yaml"] != files["templates/cm.yaml"] {
		t.Errorf("Apply = %q", got)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "change.patch"), []byte(p.Diff), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Spec{Apps: []App{firstApp(t, "../../suites/upgrade-check/during-sync-apps.yaml")}}
	err = s.readChanges(context.Background(), "change.patch", appcell.Where{Repo: dir})
	if err == nil || !strings.Contains(err.Error(), "application during-sync: CHANGE change.patch does not apply") {
		t.Errorf("readChanges of a patch of another source: %v", err)
	}
	if err := s.readChanges(context.Background(), "other=change.patch", appcell.Where{Repo: dir}); err == nil || !strings.Contains(err.Error(), `no application "other"`) {
		t.Errorf("readChanges naming no such application: %v", err)
	}
}

// firstApp is the first Application of the APPS file or directory path,
// its source read.
func firstApp(t *testing.T, path string) App {
	t.Helper()
	apps, files, err := ReadApps(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := appcell.Resolver{CacheDir: t.TempDir()}.Resolve(apps[0], files[0])
	if err != nil {
		t.Fatal(err)
	}
	return App{Spec: apps[0], File: files[0], Source: src}
}

// SHARD=k/N takes every N-th Application by name from the k-th, so N jobs
// check each once; a shard with none, or a malformed one, is refused.
func TestShard(t *testing.T) {
	var apps []*v1alpha1.Application
	var files []string
	for _, n := range []string{"e", "a", "d", "b", "c"} {
		apps = append(apps, &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: n}})
		files = append(files, n+".yaml")
	}
	seen := map[string]int{}
	for k, want := range []string{"a c e", "b d"} {
		in, inFiles, others, err := shard(fmt.Sprintf("%d/2", k+1), apps, files)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for i, a := range in {
			names = append(names, a.Name)
			seen[a.Name]++
			if inFiles[i] != a.Name+".yaml" {
				t.Errorf("%s came from %s", a.Name, inFiles[i])
			}
		}
		if got := strings.Join(names, " "); got != want || len(others) != 5-len(in) {
			t.Errorf("shard %d/2: %q (others %q), want %q", k+1, got, others, want)
		}
	}
	if len(seen) != 5 {
		t.Errorf("the shards took %v, want each of the five once", seen)
	}
	for _, bad := range []string{"0/2", "3/2", "2", "a/b", "6/6"} {
		if _, _, _, err := shard(bad, apps, files); err == nil || !strings.Contains(err.Error(), "SHARD") {
			t.Errorf("SHARD=%s: %v, want refused in one line", bad, err)
		}
	}
}

// make upgrade-check's settings reach the CLI and the test binary from the
// environment, where make puts its command line's variables: a flag given
// (even empty) wins, WEBHOOK=1 is true, a value the flag refuses is an
// error naming the variable; the shared ones (make conform's too) are
// passed as flags and not read.
func TestSettingsFromEnv(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	o.Register(fs)
	o.Shared.Register(fs)
	if err := fs.Parse([]string{"-lifecycle=", "-apps", "a.yaml"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"METHOD": "client-side", "DURING_SYNC": "3", "WEBHOOK": "1", "LIFECYCLE": "all", "APPS": "b.yaml", "IMAGES": "x:1"}
	if err := FromEnv(fs, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if o.Method != "client-side" || o.DuringSync != 3 || !o.Webhook || o.Lifecycle != "" || o.Apps != "a.yaml" || o.Images != "" {
		t.Errorf("FromEnv: %+v", o)
	}
	if got := o.command(); got != "make upgrade-check APPS=a.yaml METHOD=client-side DURING_SYNC=3 WEBHOOK=1" {
		t.Errorf("command: %q", got)
	}
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	o = Options{}
	o.Register(fs)
	if err := FromEnv(fs, func(k string) string { return map[string]string{"DURING_SYNC": "many"}[k] }); err == nil || !strings.Contains(err.Error(), `DURING_SYNC="many"`) {
		t.Errorf("DURING_SYNC=many: %v", err)
	}
	// every setting is declared once: a make variable, a flag, each unique
	seen := map[string]bool{}
	for _, s := range Settings {
		for _, k := range []string{"make " + s.Make, "flag " + s.Flag, "yaml " + s.YAML} {
			if seen[k] && k != "yaml " {
				t.Errorf("%s declared twice", k)
			}
			seen[k] = true
		}
		if !s.shared && s.Help == "" {
			t.Errorf("%s: no help", s.Make)
		}
	}
}
