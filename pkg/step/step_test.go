package step

import (
	"context"
	"slices"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"
	"sigs.k8s.io/e2e-framework/pkg/types"
)

func nop(ctx context.Context, _ *testing.T, _ *envconf.Config) context.Context { return ctx }

// TestActionsNeverAssess: actions go into Setup, looks into Assess; an
// action after a look opens the next stage.
func TestActionsNeverAssess(t *testing.T) {
	sc := New("cell").Add(Act("push", nop), Act("sync", nop), Look("synced", nop),
		Act("delete", nop), Look("gone", nop), Look("held", nop), Act("at the end", nop)).Scenario()
	var got [][]string
	for _, f := range sc.Stages {
		var st []string
		for _, s := range f.Steps() {
			level := map[types.Level]string{types.LevelSetup: "setup", types.LevelAssess: "assess"}[s.Level()]
			st = append(st, level+" "+s.Name())
		}
		got = append(got, st)
	}
	want := [][]string{{"setup push", "setup sync", "assess synced"}, {"setup delete", "assess gone", "assess held"}, {"setup at the end"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("stages %q, want %q", got, want)
	}
	if names := []string{sc.Stages[0].Name(), sc.Stages[1].Name()}; !slices.Equal(names, []string{"cell", "2 delete"}) {
		t.Errorf("stage names %q", names)
	}
	if len(sc.Repeated) != 0 {
		t.Errorf("repeated %q", sc.Repeated)
	}
}

func TestRepeatedNames(t *testing.T) {
	sync := Act("sync app", nop)
	sc := New("cell").Add(sync, Look("synced", nop), sync, sync.As("sync again")).Scenario()
	if !slices.Equal(sc.Repeated, []string{"sync app"}) {
		t.Errorf("repeated %q, want [sync app]", sc.Repeated)
	}
}

func TestUnmadeStepPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a zero Step was accepted")
		}
	}()
	New("cell").Add(Step{name: "x"})
}

var _ features.Func = nop

// TestSkippedLookEndsItsStage: the looks after one that skipped do not run
// (e2e-framework v0.7.0 would run them), also when the stage runs again.
func TestSkippedLookEndsItsStage(t *testing.T) {
	var ran []string
	look := func(name string, skip bool) Step {
		return Look(name, func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
			ran = append(ran, name)
			if skip {
				t.Skip("not provided")
			}
			return ctx
		})
	}
	sc := New("cell").Add(Act("push", nop), look("provided", true), look("after", false)).Scenario()
	for range 2 {
		testenv := env.New()
		testenv.Test(t, sc.Stages[0])
	}
	if want := []string{"provided", "provided"}; !slices.Equal(ran, want) {
		t.Errorf("ran %q, want %q", ran, want)
	}
}
