package suites

import (
	_ "embed"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
)

//go:embed upgrade-check-validate.yaml
var upgradeValidateYAML []byte

// UpgradeValidation is one run of make upgrade-check-validate: an upgrade
// path, the Applications taken through it and the settings it runs with, and
// the verdicts measured there (suites/upgrade-check-validate.yaml).
type UpgradeValidation struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	From  string `json:"from"`
	To    string `json:"to"`
	// Apps is a file or directory of Applications, relative to the
	// checkout; "" runs the seed charts (Only: some of them).
	Apps            string   `json:"apps,omitempty"`
	Only            []string `json:"only,omitempty"`
	Method          string   `json:"method,omitempty"`
	SelfSyncOptions []string `json:"selfSyncOptions,omitempty"`
	Overlay         string   `json:"overlay,omitempty"`
	ArgoCDCM        string   `json:"argocdCM,omitempty"`
	ArgoCDCmdParams string   `json:"argocdCmdParams,omitempty"`
	Metrics         string   `json:"metrics,omitempty"`
	DuringSync      int      `json:"duringSync,omitempty"`
	Webhook         bool     `json:"webhook,omitempty"`
	Change          string   `json:"change,omitempty"`
	// Isolate and Lifecycle are ISOLATE and LIFECYCLE: "0", the fleet on
	// one ArgoCD (its known answers where the story allows one).
	Isolate   string `json:"isolate,omitempty"`
	Lifecycle string `json:"lifecycle,omitempty"`
	// Expect are the known answers: Application to verdict.
	Expect map[string]report.Outcome `json:"expect"`
	// Measured are the runs the answers were measured in.
	Measured []string `json:"measured"`
	Why      string   `json:"why"`
}

// UpgradeValidations are suites/upgrade-check-validate.yaml's, checked.
func UpgradeValidations() ([]UpgradeValidation, error) {
	return readList(upgradeValidateYAML, "suites/upgrade-check-validate.yaml", "validations", "validation",
		func(v UpgradeValidation) string { return v.Name }, UpgradeValidation.check)
}

func (v UpgradeValidation) check() error {
	switch {
	case v.Name == "" || v.Title == "" || v.Why == "":
		return errors.New("name, title and why are required")
	case v.From == "" || v.To == "":
		return errors.New("from and to are required: the answers were measured on one path")
	case len(v.Expect) == 0:
		return errors.New("no expect: a validation checks known answers")
	case len(v.Measured) == 0:
		return errors.New("no measured: a known answer names the runs that measured it")
	case v.Apps != "" && len(v.Only) > 0:
		return errors.New("apps or only, not both: only picks among the seed charts")
	case v.DuringSync < 0:
		return errors.New("duringSync: a number of trials")
	}
	for app, o := range v.Expect {
		if !slices.Contains([]report.Outcome{report.Safe, report.Changed, report.Broken, report.Race}, o) {
			return fmt.Errorf("expect %s: %s is not SAFE, CHANGED, BROKEN or RACE (measured going both ways)", app, o)
		}
	}
	if len(v.Only) > 0 {
		for app := range v.Expect {
			if !slices.Contains(v.Only, app) {
				return fmt.Errorf("expect %s: not among only (%s)", app, strings.Join(v.Only, ", "))
			}
		}
	}
	return nil
}

// Applications are those with a known answer, sorted.
func (v UpgradeValidation) Applications() []string {
	var out []string
	for a := range v.Expect {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// Setting is what the validation sets beyond the path, as make's variables
// ("" for the defaults).
func (v UpgradeValidation) Setting() string {
	var s []string
	for _, f := range []struct{ name, value string }{
		{"METHOD", v.Method}, {"SELF_SYNC_OPTIONS", strings.Join(v.SelfSyncOptions, ",")}, {"OVERLAY", v.Overlay},
		{"ARGOCD_CM", v.ArgoCDCM}, {"ARGOCD_CMD_PARAMS", v.ArgoCDCmdParams}, {"METRICS", v.Metrics},
		{"CHANGE", v.Change}, {"ISOLATE", v.Isolate}, {"LIFECYCLE", v.Lifecycle},
	} {
		if f.value != "" {
			s = append(s, f.name+"="+f.value)
		}
	}
	if v.DuringSync > 0 {
		s = append(s, "DURING_SYNC="+strconv.Itoa(v.DuringSync))
	}
	if v.Webhook {
		s = append(s, "WEBHOOK=1")
	}
	return strings.Join(s, " ")
}

// Args are the e2e test binary's make upgrade-check flags for the
// validation: apps is where its Applications are (v.Apps, or the seed charts
// written for it), repo the checkout its paths are relative to.
func (v UpgradeValidation) Args(repo, apps string) []string {
	path := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(repo, p)
	}
	var expect []string
	for _, a := range v.Applications() {
		expect = append(expect, a+"="+string(v.Expect[a]))
	}
	args := []string{"-apps", path(apps), "-from", v.From, "-to", v.To,
		"-expect", strings.Join(expect, ","),
		"-expect-why", fmt.Sprintf("make upgrade-check-validate, %s: %s (measured in %s)", v.Name, v.Why, strings.Join(v.Measured, ", "))}
	for _, f := range []struct{ flag, value string }{
		{"-method", v.Method}, {"-self-sync-options", strings.Join(v.SelfSyncOptions, ",")}, {"-overlay", path(v.Overlay)},
		{"-argocd-cm", path(v.ArgoCDCM)}, {"-argocd-cmd-params", path(v.ArgoCDCmdParams)}, {"-metrics", v.Metrics},
		{"-change", path(v.Change)}, {"-isolate", v.Isolate}, {"-lifecycle", v.Lifecycle},
	} {
		if f.value != "" {
			args = append(args, f.flag, f.value)
		}
	}
	if v.DuringSync > 0 {
		args = append(args, "-during-sync", strconv.Itoa(v.DuringSync))
	}
	if v.Webhook {
		args = append(args, "-webhook")
	}
	return args
}
