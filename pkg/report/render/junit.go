package render

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/gitops-conformance/suite/pkg/report"
)

// JUnit renders one test case per cell; the cells that fail the run
// (Report.Fails) fail.
func JUnit(r *report.Report) []byte {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
		SystemOut string   `xml:"system-out,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := suite{Name: "gitops-conformance " + r.RunID, Tests: len(r.Cells)}
	for _, c := range r.Cells {
		tc := testcase{Name: strings.TrimSpace(c.Variant + " argocd " + c.ArgoCD + " " + c.Component + " " + c.ComponentVersion + " kubernetes " + c.Kubernetes),
			Classname: c.Scenario, Time: fmt.Sprintf("%.1f", c.Duration)}
		switch {
		case r.Fails(&c):
			tc.Failure = &failure{Message: fmt.Sprintf("%s, expected %s", c.Outcome, c.ExpectedText()), Text: c.Reason}
			s.Failures++
		case c.Outcome == report.Skipped:
			tc.Skipped = &skipped{Message: c.Reason}
			s.Skipped++
		}
		if c.Unmeasured {
			tc.SystemOut = fmt.Sprintf("%s: %s (%s)", report.NoMeasurement, c.Outcome, c.Reason)
		}
		s.Cases = append(s.Cases, tc)
	}
	out, _ := xml.MarshalIndent(s, "", "  ")
	return append([]byte(xml.Header), append(out, '\n')...)
}
