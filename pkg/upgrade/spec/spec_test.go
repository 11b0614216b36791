package spec

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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

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
	o := Options{From: "v3.4.7", To: "v3.5.1", Apps: "../../../suites/upgrade-check/blocking-webhook-apps.yaml", Method: "client-side", ArgoCDCmdParams: params}
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

func TestKeptAnnotations(t *testing.T) {
	got := Kept(map[string]string{"argocd.argoproj.io/manifest-generate-paths": ".", "argocd.argoproj.io/refresh": "hard",
		"kubectl.kubernetes.io/last-applied-configuration": "{}", ImagesAnnotation: "x"})
	if len(got) != 1 || got["argocd.argoproj.io/manifest-generate-paths"] != "." {
		t.Errorf("kept = %v", got)
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
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Options{From: "v3.5.1", To: "v3.6.1", Apps: "../../../suites/upgrade-check/during-sync-apps.yaml"}.Resolve(context.Background(), cat, appcell.Where{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	err = s.readChanges(context.Background(), "change.patch", appcell.Where{Repo: dir})
	if err == nil || !strings.Contains(err.Error(), "application during-sync: CHANGE change.patch does not apply") {
		t.Errorf("readChanges of a patch of another source: %v", err)
	}
	if err := s.readChanges(context.Background(), "other=change.patch", appcell.Where{Repo: dir}); err == nil || !strings.Contains(err.Error(), `no application "other"`) {
		t.Errorf("readChanges naming no such application: %v", err)
	}
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

func TestFleetRefusesGeneratorsItCannotServe(t *testing.T) {
	gens := []any{map[string]any{"matrix": map[string]any{"generators": []any{
		map[string]any{"list": map[string]any{}},
		map[string]any{"pullRequest": map[string]any{}},
	}}}}
	if why := refusedGenerator(gens); !strings.Contains(why, "pullRequest") {
		t.Errorf("refusedGenerator(matrix with pullRequest) = %q", why)
	}
	ok := []any{map[string]any{"git": map[string]any{}}, map[string]any{"merge": map[string]any{"generators": []any{map[string]any{"clusters": map[string]any{}}}}}}
	if why := refusedGenerator(ok); why != "" {
		t.Errorf("refusedGenerator(git, merge of clusters) = %q, want none", why)
	}
}

func TestIsolateChoosesTheFleetOrRefuses(t *testing.T) {
	set := []object{{obj: map[string]any{"kind": "ApplicationSet"}}}
	app := []object{{obj: map[string]any{"kind": "Application"}}}
	for _, c := range []struct {
		isolate string
		objs    []object
		repos   bool
		fleet   bool
		refused bool
	}{
		{"", app, false, false, false},
		{"", set, false, true, false},
		{"", app, true, true, false},
		{"0", app, false, true, false},
		{"1", app, false, false, false},
		{"1", set, false, false, true},
		{"1", app, true, false, true},
		{"2", app, false, false, true},
	} {
		fleet, err := Options{Isolate: c.isolate}.fleet(c.objs, c.repos)
		if fleet != c.fleet || (err != nil) != c.refused {
			t.Errorf("ISOLATE=%q, %v, repos %v: fleet %v, %v; want %v, refused %v", c.isolate, c.objs[0].obj["kind"], c.repos, fleet, err, c.fleet, c.refused)
		}
	}
}

func TestShardFleetSplitsApplicationsAndApplicationSets(t *testing.T) {
	set := func(n string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetName(n)
		return u
	}
	app := func(n string) App {
		a := &v1alpha1.Application{}
		a.Name = n
		return App{Spec: a}
	}
	seen := map[string]int{}
	for k := 1; k <= 2; k++ {
		s := &Spec{Apps: []App{app("c"), app("a")}, AppSets: []*unstructured.Unstructured{set("b"), set("d")}}
		if err := s.shardFleet(fmt.Sprintf("%d/2", k)); err != nil {
			t.Fatal(err)
		}
		for _, a := range s.Apps {
			seen[a.Name()]++
		}
		for _, a := range s.AppSets {
			seen[a.GetName()]++
		}
		if len(s.Apps)+len(s.AppSets) != 2 || len(s.Others) != 2 {
			t.Errorf("shard %d/2: %d Applications, %d ApplicationSets, others %q", k, len(s.Apps), len(s.AppSets), s.Others)
		}
	}
	if len(seen) != 4 || seen["a"] != 1 || seen["d"] != 1 {
		t.Errorf("the shards together: %v, want each of a, b, c, d once", seen)
	}
	if err := (&Spec{Apps: []App{app("a")}}).shardFleet("2/2"); err == nil {
		t.Error("an empty shard: no error")
	}
}

func TestParseLifecycle(t *testing.T) {
	for in, want := range map[string]string{"": LifecycleChanged, "all": LifecycleAll, "none": LifecycleNone} {
		if got, err := ParseLifecycle(in); got != want || err != nil {
			t.Errorf("ParseLifecycle(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseLifecycle("some"); err == nil {
		t.Error("ParseLifecycle(some): no error")
	}
}

// The fleet makes the destination namespaces its Applications need, never
// ArgoCD's own or the cluster's (an app-of-apps parent's destination is
// argocd): what it makes it deletes at its end, and argocd would hang on the
// Applications' finalizers with no controller left to remove them (#74).
func TestTheFleetMakesNoNamespaceOfArgoCDs(t *testing.T) {
	app := func(name, ns string) App {
		a := &v1alpha1.Application{}
		a.Name, a.Spec.Destination.Namespace = name, ns
		return App{Spec: a}
	}
	s := &Spec{Apps: []App{app("parent", "argocd"), app("red", "tenant-red"), app("sys", "kube-system"), app("d", "default"), app("blue", "tenant-red")}}
	if got := s.Namespaces(); got != "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-red\n" {
		t.Errorf("namespaces:\n%s", got)
	}
}

// HEALTH_WINDOW is a Go duration (2m when not given), refused out of
// 0s-30m naming the setting.
func TestHealthWindow(t *testing.T) {
	for in, want := range map[string]time.Duration{"": DefaultHealthWindow, "0s": 0, "3m": 3 * time.Minute} {
		if got, err := parseWindow(in); got != want || err != nil {
			t.Errorf("parseWindow(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"3", "-1m", "1h"} {
		if _, err := parseWindow(in); err == nil || !strings.Contains(err.Error(), "HEALTH_WINDOW") {
			t.Errorf("parseWindow(%q): %v, want a refusal naming HEALTH_WINDOW", in, err)
		}
	}
}
