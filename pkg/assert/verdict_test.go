package assert

import (
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
)

func TestRecordOutcome(t *testing.T) {
	tests := []struct {
		name       string
		mitigation bool
		judge      []bool
		fail       string
		want       report.Outcome
	}{
		{"no verdict is an error", false, nil, "", report.Error},
		{"symptom held", false, []bool{true, true}, "", report.Reproduced},
		{"a negative check sticks", false, []bool{true, false, true}, "", report.NotReproduced},
		{"mitigation held", true, []bool{true}, "", report.Mitigated},
		{"mitigation broke", true, []bool{false}, "", report.NotMitigated},
		{"a failed step wins", true, []bool{true}, "install: boom", report.Error},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Record{Mitigation: tt.mitigation}
			for _, j := range tt.judge {
				r.judge(j, "x")
			}
			if tt.fail != "" {
				r.Fail(tt.fail)
			}
			if got, _ := r.Outcome(); got != tt.want {
				t.Fatalf("Outcome() = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestRecordSkip(t *testing.T) {
	r := &Record{}
	r.Skip("offline: set CHARTS to a chart directory")
	if got, why := r.Outcome(); got != report.Skipped || why != "offline: set CHARTS to a chart directory" {
		t.Fatalf("Outcome() = %s %q, want SKIPPED with the reason", got, why)
	}
	r.Fail("install: boom")
	if got, _ := r.Outcome(); got != report.Error {
		t.Fatalf("a failed step must win over a skip: %s", got)
	}
}
