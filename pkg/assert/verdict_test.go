package assert

import (
	"context"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/repro"
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

// Conclude: the verdict before the scenario's end stops the cell there,
// the first one stays, and a failed step still wins.
func TestRecordConclude(t *testing.T) {
	r := &Record{}
	if r.Stopped() {
		t.Fatal("a fresh record is stopped")
	}
	r.Conclude(report.Broken, "the upgrade to v3.5.1 cannot finish")
	r.Conclude(report.Safe, "a second verdict")
	if !r.Stopped() {
		t.Error("a concluded cell is not stopped")
	}
	if got, why := r.Outcome(); got != report.Broken || why != "the upgrade to v3.5.1 cannot finish" {
		t.Errorf("Outcome() = %s %q, want the first conclusion", got, why)
	}
	r.Fail("cleanup: boom")
	if got, _ := r.Outcome(); got != report.Error {
		t.Errorf("a failed step must win over a conclusion: %s", got)
	}
}

// Unsettled: the class shows unless the clean state comes and stays.
func TestUnsettled(t *testing.T) {
	yes := func(context.Context) (bool, string, error) { return true, "Synced", nil }
	no := func(context.Context) (bool, string, error) { return false, "OutOfSync", nil }
	looks := 0
	flips := func(context.Context) (bool, string, error) { // Synced at first, then OutOfSync for good
		looks++
		if looks > 1 {
			return false, "OutOfSync", nil
		}
		return true, "Synced", nil
	}
	for _, tt := range []struct {
		name  string
		clean Check
		want  report.Outcome
	}{
		{"settles and stays", yes, report.NotReproduced},
		{"never settles", no, report.Reproduced},
		{"settles, then breaks", flips, report.Reproduced},
	} {
		ctx, _ := fakeTime() // the waits' minutes pass on a fake clock
		ctx, log := repro.WithLog(ctx)
		ctx, rec := WithRecord(ctx, false)
		Unsettled(time.Minute, time.Minute, Named("application Synced and staying so", tt.clean)).Func()(ctx, t, nil)
		if got, why := rec.Outcome(); got != tt.want {
			t.Errorf("%s: %s (%s), want %s", tt.name, got, why, tt.want)
		}
		if len(log.Steps) != 1 || log.Steps[0].Kind != repro.Unsettled || !log.Steps[0].Kind.Verdict() {
			t.Errorf("%s: recorded %+v", tt.name, log.Steps)
		}
	}
}
