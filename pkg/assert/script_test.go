package assert

import (
	"context"
	"testing"

	"github.com/gitops-conformance/suite/pkg/repro"
)

// A scripted check gives its bash form without looking at the cluster;
// combinations give theirs; a plain closure has none.
func TestScriptOf(t *testing.T) {
	looked := 0
	exists := Scripted(func(context.Context) (bool, string, error) { looked++; return true, "exists", nil },
		func(context.Context) (*repro.Check, error) { return repro.Exists("job", "n", "j"), nil })
	plain := func(context.Context) (bool, string, error) { looked++; return true, "", nil }
	ctx := context.Background()
	if got := ScriptOf(ctx, All(exists, Any(exists, exists))).Shell; got != "{ exists job n j && { exists job n j || exists job n j; }; }" {
		t.Errorf("All(Any) = %q", got)
	}
	if got := ScriptOf(ctx, All(exists, plain)).Shell; got != "" {
		t.Errorf("a combination with a closure kubectl cannot take: %q", got)
	}
	if looked != 1 { // only the plain closure, which cannot describe itself, looked
		t.Errorf("describing looked at the cluster %d time(s)", looked)
	}
	if ok, _, _ := exists(ctx); !ok || looked != 2 {
		t.Error("a scripted check still looks when asked to")
	}
}

// While a branch the cell did not take is written down, waits and verdicts
// are recorded and neither wait nor judge.
func TestVerdictsInAPlannedBranchOnlyRecord(t *testing.T) {
	ctx, log := repro.WithLog(context.Background())
	ctx, rec := WithRecord(ctx, false)
	never := Scripted(func(context.Context) (bool, string, error) { t.Fatal("looked"); return false, "", nil },
		func(context.Context) (*repro.Check, error) { return repro.Missing("job", "n", "j"), nil })
	branch, done := repro.InBranch(ctx, "unblock", repro.Exists("job", "n", "j"), true, false)
	That("job gone", Intervals.Sync, never).Func()(branch, t, nil)
	Symptom("job held", Intervals.Hold, never).Func()(branch, t, nil)
	done()
	if len(log.Steps) != 1 || len(log.Steps[0].Steps) != 2 || log.Steps[0].Steps[1].Kind != repro.Symptom || log.Steps[0].Taken {
		t.Fatalf("record: %+v", log.Steps)
	}
	if got, _ := rec.Outcome(); got != "ERROR" {
		t.Errorf("a planned verdict must not judge: %s", got)
	}
}
