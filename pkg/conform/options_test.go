package conform

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/appcell/appcelltest"
)

func TestResolveRefusesBadInputBeforeAnythingStarts(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	appcelltest.WriteChart(t, dir, "c", "c", "1.0.0", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {r: {{ .Values.replicas | quote }}}\n"})
	if err := os.WriteFile(filepath.Join(dir, "values.yaml"), []byte("replicas: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("- a list\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := Options{Chart: "c", Values: "values.yaml", NamespaceLabels: "a=b,team=x", Checks: "namespace-kept,crd-diff",
		SyncOptions: "ServerSideApply=true", Shared: appcell.Shared{Expect: "crd-diff=REPRODUCED"}}.Resolve(ctx, appcell.Where{Repo: dir, CacheDir: cache, Kubernetes: "v1.33.13"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Release != "c" || s.Namespace != "c" || s.Labels["team"] != "x" || strings.Join(s.Checks, ",") != "crd-diff,namespace-kept" ||
		s.Expect["crd-diff"] != "REPRODUCED" || s.SyncOptions[0] != "ServerSideApply=true" || !strings.Contains(s.Values, "replicas: 3") {
		t.Fatalf("spec: %+v", s)
	}
	if cm := s.Rendered.Find("", "ConfigMap", "c", "c"); cm == nil || !strings.Contains(s.Rendered.Manifest(), `r: "3"`) {
		t.Fatalf("rendered with the values into the namespace:\n%s", s.Rendered.Manifest())
	}
	if !strings.HasPrefix(s.Command, "make conform CHART=c VALUES=values.yaml NAMESPACE_LABELS=a=b,team=x") {
		t.Errorf("command: %s", s.Command)
	}
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Chart: "c", Checks: "crd-diff,nope"}, `unknown check "nope" (valid: crd-diff, hook-stuck, self-blocking-webhook, leftover-webhook, namespace-kept, deletion-hooks, helm-lookup, hook-cannot-run, hook-kind-missing, self-heal-fight)`},
		{Options{Chart: "c", Checks: "crd-diff", Shared: appcell.Shared{Expect: "hook-stuck=REPRODUCED"}}, `"hook-stuck" is not a check of this run`},
		{Options{Chart: "c", Shared: appcell.Shared{Expect: "crd-diff=MITIGATED"}}, "not check=REPRODUCED or check=NOT_REPRODUCED"},
		{Options{Chart: "https://charts.example.com", ChartName: "c", ChartVersion: "1.0.0"}, "a chart repository needs the online mode"},
		{Options{Chart: "c", ChartDigest: "abc"}, "not CHART_DIGEST abc"},
		{Options{Chart: "c", Namespace: "kube-system"}, `namespace "kube-system": the suite's cluster needs it`},
		{Options{Chart: "c", Namespace: "Not_A_Name"}, `namespace "Not_A_Name"`},
		{Options{Chart: "c", Release: "a.b"}, `release "a.b": not a Helm release name`},
		{Options{Chart: "c", NamespaceLabels: "x"}, `namespace label "x": not key=value`},
		{Options{Chart: "c", NamespaceLabels: "a=b c"}, `namespace label "a=b c"`},
		{Options{Chart: "c", Values: "nope.yaml"}, `values "nope.yaml": no such file or directory`},
		{Options{Chart: "c", Values: "bad.yaml"}, `values "bad.yaml": not a YAML map`},
		{Options{Chart: "c", Extra: "nope"}, `extra "nope": no such file or directory`},
		{Options{Chart: "c", Extra: "empty"}, `extra "empty": no manifests`},
		{Options{Chart: "c", Extra: "."}, `extra ".": decode manifest`},
		{Options{Chart: "c", Shared: appcell.Shared{ImageRecipes: "knative"}}, `image recipe "knative": not component@version`},
		{Options{Chart: "c", Shared: appcell.Shared{ImageRecipes: "nope@v1.0.0"}}, `the suite has no recipe images/nope/build.sh`},
	} {
		if _, err := tt.o.Resolve(ctx, appcell.Where{Repo: dir, CacheDir: cache, Kubernetes: "v1.33.13"}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v; want %q", tt.o, err, tt.want)
		}
	}
}
