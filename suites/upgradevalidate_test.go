package suites

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
)

// Each validation's files are the checkout's, each Application it expects
// a verdict of is one its run checks, and the flags are make upgrade-check's.
func TestUpgradeValidationsAreRunnable(t *testing.T) {
	vs, err := UpgradeValidations()
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) < 20 {
		t.Fatalf("%d validations: the known answers of docs/upgrade-check-findings.md are missing", len(vs))
	}
	seeds, err := SeedApps()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		paths := []string{v.Apps}
		for _, st := range spec.Settings {
			if p, ok := v.Settings[st.YAML].(string); st.Path && ok {
				paths = append(paths, p)
			}
		}
		for _, p := range paths {
			if p != "" && !strings.Contains(p, "=") {
				if _, err := os.Stat(filepath.Join("..", p)); err != nil {
					t.Errorf("%s: %v", v.Name, err)
				}
			}
		}
		var names []string
		if v.Apps == "" {
			for _, s := range seeds {
				if len(v.Only) == 0 || slices.Contains(v.Only, s.Name) {
					names = append(names, s.Name)
				}
			}
		} else {
			data, err := os.ReadFile(filepath.Join("..", v.Apps))
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(data), "\n") {
				if n, ok := strings.CutPrefix(strings.TrimSpace(l), "name: "); ok {
					names = append(names, strings.Trim(n, `"'`))
				}
			}
		}
		for _, a := range v.Applications() {
			if !slices.Contains(names, a) {
				t.Errorf("%s: expects a verdict of %s, not an Application of its run (%s)", v.Name, a, strings.Join(names, ", "))
			}
		}
		args := strings.Join(v.Args("/repo", "/apps"), " ")
		for _, want := range []string{"-apps /apps", "-from " + v.From, "-to " + v.To, "-expect ", "-method=", "-during-sync=", "-webhook="} {
			if !strings.Contains(args, want) {
				t.Errorf("%s: flags %q lack %q", v.Name, args, want)
			}
		}
	}
}

// A validation's settings are make upgrade-check's (spec.Settings) by
// their YAML key: its flags give every one, empty where unset, so the
// caller's environment reaches none; an unknown key is refused when read.
func TestUpgradeValidationArgs(t *testing.T) {
	var v UpgradeValidation
	if err := yaml.UnmarshalStrict([]byte(`{name: val, from: v3.5.1, to: v3.6.1, method: self-managed, selfSyncOptions: [ServerSideApply=true],
overlay: suites/o, duringSync: 3, isolate: "0", lifecycle: all, expect: {b: BROKEN, a: SAFE}, measured: [r1], why: w}`), &v); err != nil {
		t.Fatal(err)
	}
	got := v.Args("/repo", "apps.yaml")
	want := []string{"-apps", "/repo/apps.yaml", "-from", "v3.5.1", "-to", "v3.6.1", "-expect", "a=SAFE,b=BROKEN",
		"-expect-why", "make upgrade-check-validate, val: w (measured in r1)",
		"-argocd-cm=", "-argocd-cmd-params=", "-method=self-managed", "-self-sync-options=ServerSideApply=true", "-overlay=/repo/suites/o",
		"-metrics=", "-change=", "-during-sync=3", "-webhook=false", "-shard=", "-repo=", "-repos=", "-isolate=0", "-lifecycle=all", "-health-window="}
	if !slices.Equal(got, want) {
		t.Errorf("Args:\n got %q\nwant %q", got, want)
	}
	if s := v.Setting(); s != "METHOD=self-managed SELF_SYNC_OPTIONS=ServerSideApply=true OVERLAY=suites/o DURING_SYNC=3 ISOLATE=0 LIFECYCLE=all" {
		t.Errorf("Setting: %q", s)
	}
	if err := yaml.UnmarshalStrict([]byte(`{name: val, from: a, to: b, methd: client-side}`), &v); err == nil || !strings.Contains(err.Error(), "methd") || !strings.Contains(err.Error(), "duringSync") {
		t.Errorf("an unknown key: %v, want it refused naming the settings", err)
	}
}

func TestUpgradeValidationCheckRefuses(t *testing.T) {
	ok := UpgradeValidation{Name: "n", Title: "t", Why: "w", From: "a", To: "b", Expect: map[string]report.Outcome{"x": report.Safe}, Measured: []string{"r"}}
	if err := ok.check(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*UpgradeValidation){
		"no measured":     func(v *UpgradeValidation) { v.Measured = nil },
		"no expect":       func(v *UpgradeValidation) { v.Expect = nil },
		"scenario answer": func(v *UpgradeValidation) { v.Expect = map[string]report.Outcome{"x": report.Reproduced} },
		"apps and only":   func(v *UpgradeValidation) { v.Apps, v.Only = "f", []string{"x"} },
		"expect not only": func(v *UpgradeValidation) { v.Only = []string{"y"} },
		"no to":           func(v *UpgradeValidation) { v.To = "" },
	} {
		v := ok
		mut(&v)
		if v.check() == nil {
			t.Errorf("%s: taken", name)
		}
	}
}
