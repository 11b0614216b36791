package suites

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/conform"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/scenarios/kyverno"
	"github.com/gitops-conformance/suite/scenarios/openkruise"
)

func TestValidationsAreTheScenariosSettings(t *testing.T) {
	vs, err := Validations()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, v := range vs {
		for c := range v.Expect {
			covered[c] = true
		}
		switch {
		case strings.HasPrefix(v.Name, "kyverno-"):
			// the values the scenario measured with
			var want map[string]any
			if err := yaml.Unmarshal([]byte(kyverno.Values("bug")), &want); err != nil {
				t.Fatal(err)
			}
			got, _ := yaml.Marshal(v.Values)
			var gotMap map[string]any
			_ = yaml.Unmarshal(got, &gotMap)
			if _, ok := v.Expect["hook-cannot-run"]; ok {
				delete(gotMap, "policyReportsCleanup") // the class's own setting of the hook, beside the scenario's
			}
			if !reflect.DeepEqual(gotMap, want) || !slices.Equal(v.SyncOptions, kyverno.SyncOptions) {
				t.Errorf("%s: values %v, sync options %v; the scenario's are %v, %v", v.Name, gotMap, v.SyncOptions, want, kyverno.SyncOptions)
			}
		case strings.HasPrefix(v.Name, "kruise-"):
			data, err := os.ReadFile(filepath.Join("..", v.ValuesFile))
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := yaml.Unmarshal(data, &got); err != nil || !reflect.DeepEqual(got, openkruise.Values()) {
				t.Errorf("%s: values %v, %v; the write-up's are %v", v.Name, got, err, openkruise.Values())
			}
		}
	}
	for _, c := range conform.Names() {
		if !covered[c] {
			t.Errorf("no validation knows an answer of check %s", c)
		}
	}
}

func TestValidationArgs(t *testing.T) {
	vs, err := Validations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(vs, func(v Validation) bool { return v.Name == "kruise-1.5.2-labelled" })
	t.Setenv("OPENKRUISE_CHARTS", "/charts")
	args, err := vs[i].Args(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(args, " ")
	for _, want := range []string{"-chart /charts -namespace kruise-system -argocd v2.14.11 -checks self-blocking-webhook", "-chart-name kruise -chart-version 1.5.2",
		"-namespace-labels control-plane=openkruise", "-image-recipes openkruise@v1.5.2", "-values suites/conform/kruise-values.yaml",
		"-expect self-blocking-webhook=NOT_REPRODUCED -expect-why suites/conform.yaml kruise-1.5.2-labelled: openkruise-webhook namespace-label MITIGATED"} {
		if !strings.Contains(got, want) {
			t.Errorf("args lack %q: %s", want, got)
		}
	}
	t.Setenv("OPENKRUISE_CHARTS", "")
	if _, err := vs[i].Args(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "set OPENKRUISE_CHARTS") {
		t.Errorf("an unset variable: %v", err)
	}
	j := slices.IndexFunc(vs, func(v Validation) bool { return v.Name == "fixture-hook-finalizer-argocd-v2.14.3" })
	dir := t.TempDir()
	args, err = vs[j].Args(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	values, err := os.ReadFile(filepath.Join(dir, "fixture-hook-finalizer-argocd-v2.14.3-values.yaml"))
	if err != nil || !strings.Contains(string(values), "quay.io/argoproj/argocd:v2.14.3") || !slices.Contains(args, "-values") {
		t.Errorf("inline values written for VALUES: %q %v %v", values, err, args)
	}
	// a mitigation's settings, written for IGNORE_DIFFERENCES and ARGOCD_CMD_PARAMS
	for _, c := range []struct{ name, flag, file, want string }{
		{"fixture-hpa-replicas-ignored", "-ignore-differences", "fixture-hpa-replicas-ignored-ignore-differences.yaml", "/spec/replicas"},
		{"fixture-hook-image-gone-timeout", "-argocd-cmd-params", "fixture-hook-image-gone-timeout-argocd-cmd-params.yaml", `controller.sync.timeout.seconds: "120"`},
	} {
		k := slices.IndexFunc(vs, func(v Validation) bool { return v.Name == c.name })
		args, err := vs[k].Args(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil || !strings.Contains(string(data), c.want) || !slices.Contains(args, c.flag) {
			t.Errorf("%s: %s %q %v %v", c.name, c.flag, data, err, args)
		}
	}
}

func TestValidationRefusesWhatItCannotCheck(t *testing.T) {
	for _, tt := range []struct {
		v    Validation
		want string
	}{
		{Validation{Name: "a", Title: "t", Why: "w", Namespace: "n", Chart: Chart{Path: "p"}}, "argocd and namespace are required"},
		{Validation{Name: "a", Title: "t", Why: "w", ArgoCD: "v2.14.11", Namespace: "n", Chart: Chart{Path: "p"}}, "no expect"},
		{Validation{Name: "a", Title: "t", Why: "w", ArgoCD: "v2.14.11", Namespace: "n", Chart: Chart{Path: "p"}, Expect: map[string]report.Outcome{"nope": report.Reproduced}}, `unknown check "nope"`},
		{Validation{Name: "a", Title: "t", Why: "w", ArgoCD: "v2.14.11", Namespace: "n", Chart: Chart{Path: "p"}, Expect: map[string]report.Outcome{"crd-diff": report.Mitigated}}, "is not REPRODUCED or NOT_REPRODUCED"},
		{Validation{Name: "a", Title: "t", Why: "w", ArgoCD: "v2.14.11", Namespace: "n", Chart: Chart{Path: "p", Knative: "v0.42.2"}, Expect: map[string]report.Outcome{"crd-diff": report.Reproduced}}, "exactly one of path, module, knative"},
		{Validation{Name: "a", Title: "t", Why: "w", ArgoCD: "v2.14.11", Namespace: "n", Chart: Chart{Module: "m"}, Expect: map[string]report.Outcome{"crd-diff": report.Reproduced}}, "module is module@version"},
		{Validation{Name: "a", Title: "t", Why: "w", ArgoCD: "v2.14.11", Namespace: "n", Chart: Chart{Tree: "kargo@v1.11.2"}, Expect: map[string]report.Outcome{"crd-diff": report.Reproduced}}, "tree is component@tag, with the chart's dir"},
	} {
		if err := tt.v.check(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v; want %q", tt.v, err, tt.want)
		}
	}
}
