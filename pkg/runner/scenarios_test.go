package runner

import (
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Matrix data and the scenarios' code must agree variant for variant: a
// variant the code does not handle would reach no verdict, or another's.
func TestScenariosCheckAgainstTheMatrix(t *testing.T) {
	d, err := matrix.Parse([]byte("scenarios:\n- name: s\n  component: c\n  variants: [{name: bug}, {name: fix, mitigation: true}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	feature := func(c matrix.Cell) step.Scenario { return step.New(c.Report().ID()).Scenario() }
	for _, tc := range []struct {
		code Scenarios
		want string // in the error; "" for none
	}{
		{Scenarios{"s": {Feature: feature, Variants: []string{"bug", "fix"}}}, ""},
		{Scenarios{"s": {Feature: feature, Variants: []string{"bug"}}}, `variant "fix" is in matrix.yaml but its code does not handle it`},
		{Scenarios{"s": {Feature: feature, Variants: []string{"bug", "fix", "extra"}}}, `handles variant "extra", which matrix.yaml does not declare`},
		{Scenarios{}, `scenario "s": no code registered`},
		{Scenarios{"s": {Feature: feature, Variants: []string{"bug", "fix"}}, "t": {Feature: feature}}, `scenario "t": code registered, not in matrix.yaml`},
	} {
		err := tc.code.Check(d)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.code, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("want %q, got %v", tc.want, err)
		}
	}
}
