package assert

import (
	"context"
	"testing"
	"time"

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
	// an unscripted one (a look kubectl cannot take, or one that counts what
	// it sees) is not run to find that out
	counted := Unscripted(plain)
	if got := ScriptOf(ctx, counted); got.Shell != "" || looked != 2 {
		t.Errorf("describing an unscripted check: %q, looked %d time(s)", got.Shell, looked)
	}
	if ok, _, _ := counted(ctx); !ok || looked != 3 {
		t.Error("an unscripted check still looks when asked to")
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
	Symptom(Intervals.Hold, Named("job held", never)).Func()(branch, t, nil)
	done()
	if len(log.Steps) != 1 || len(log.Steps[0].Steps) != 2 || log.Steps[0].Steps[1].Kind != repro.Symptom || log.Steps[0].Taken {
		t.Fatalf("record: %+v", log.Steps)
	}
	if got, _ := rec.Outcome(); got != "ERROR" {
		t.Errorf("a planned verdict must not judge: %s", got)
	}
}

// A check says what it holds for; All and Any name a run of looks at one
// object once; a bare func has no description, and a step made of it says so
// when it is built.
func TestChecksNameThemselves(t *testing.T) {
	yes := func(context.Context) (bool, string, error) { return true, "", nil }
	app := func(is string) Check { return NamedOf(Description{Of: "application argocd/x", Is: is}, yes) }
	job := NamedOf(Description{Of: "job ns/j", Is: "gone"}, yes)
	for _, c := range []struct {
		check Check
		want  string
	}{
		{app("health Healthy"), "application argocd/x health Healthy"},
		{All(app("operation Succeeded"), app("health Healthy")), "application argocd/x operation Succeeded and health Healthy"},
		{Any(app("gone"), job), "application argocd/x gone, or job ns/j gone"},
		{Not(job), "job ns/j not gone"},
		{Named("the guard passed", All(job, app("gone"))), "the guard passed"},
		{Constant(true, "no workload"), "no workload"},
	} {
		if d, ok := NameOf(c.check); !ok || d.String() != c.want {
			t.Errorf("NameOf = %q, %v; want %q", d, ok, c.want)
		}
	}
	if _, ok := NameOf(All(job, yes)); ok {
		t.Error("All of a bare func has a description")
	}
	if _, ok := NameOf(func(ctx context.Context) (bool, string, error) { panic("looked") }); ok {
		t.Error("a bare func that panics has a description")
	}
	if got := Await(time.Second, job).Name(); got != "job ns/j gone" {
		t.Errorf("Await named %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Await took a check without a description")
		}
	}()
	Await(time.Second, yes)
}
