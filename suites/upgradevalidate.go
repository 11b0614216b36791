package suites

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"
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
	Apps string   `json:"apps,omitempty"`
	Only []string `json:"only,omitempty"`
	// Settings are the make upgrade-check settings it runs with, by their
	// YAML key (spec.Settings: method, duringSync, isolate, ...), beside
	// the fields above in the file.
	Settings map[string]any `json:"-"`
	// Expect are the known answers: Application to verdict.
	Expect map[string]report.Outcome `json:"expect"`
	// Measured are the runs the answers were measured in.
	Measured []string `json:"measured"`
	Why      string   `json:"why"`
}

// UnmarshalJSON reads a validation: its own fields, and every other key a
// setting of make upgrade-check (spec.SettingByYAML), or an error.
func (v *UpgradeValidation) UnmarshalJSON(b []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	settings := map[string]any{}
	for k, raw := range all {
		if _, ok := spec.SettingByYAML(k); !ok {
			continue
		}
		var val any
		if err := json.Unmarshal(raw, &val); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		settings[k] = val
		delete(all, k)
	}
	rest, err := json.Marshal(all)
	if err != nil {
		return err
	}
	type fields UpgradeValidation // without this method
	dec := json.NewDecoder(bytes.NewReader(rest))
	dec.DisallowUnknownFields()
	var f fields
	if err := dec.Decode(&f); err != nil {
		return fmt.Errorf("%w (a validation's keys: name, title, from, to, apps, only, expect, measured, why, and make upgrade-check's settings: %s)", err, strings.Join(settingKeys(), ", "))
	}
	*v = UpgradeValidation(f)
	v.Settings = settings
	return nil
}

// settingKeys are the settings' YAML keys.
func settingKeys() []string {
	var keys []string
	for _, s := range spec.Settings {
		if s.YAML != "" {
			keys = append(keys, s.YAML)
		}
	}
	return keys
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
	}
	if _, err := spec.Flags(v.Settings, ""); err != nil {
		return err
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
func (v UpgradeValidation) Setting() string { return spec.Said(v.Settings) }

// Args are the e2e test binary's make upgrade-check flags for the
// validation: apps is where its Applications are (v.Apps, or the seed charts
// written for it), repo the checkout its paths are relative to. Every
// setting is given, empty where the validation sets none, so the caller's
// environment (make's variables) reaches none of them.
func (v UpgradeValidation) Args(repo, apps string) []string {
	if apps != "" && !filepath.IsAbs(apps) {
		apps = filepath.Join(repo, apps)
	}
	var expect []string
	for _, a := range v.Applications() {
		expect = append(expect, a+"="+string(v.Expect[a]))
	}
	args := []string{"-apps", apps, "-from", v.From, "-to", v.To,
		"-expect", strings.Join(expect, ","),
		"-expect-why", fmt.Sprintf("make upgrade-check-validate, %s: %s (measured in %s)", v.Name, v.Why, strings.Join(v.Measured, ", "))}
	flags, _ := spec.Flags(v.Settings, repo) // checked when read (check)
	return append(args, flags...)
}
