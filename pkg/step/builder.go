package step

import (
	"context"
	"fmt"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"
)

// Builder collects a cell's steps in order.
type Builder struct {
	id     string
	stages []*stage
	steps  []Step
}

// stage is a run of actions and the looks that follow them.
type stage struct {
	acts, looks []Step
	skipped     string // the look that skipped in this run of the stage
}

// look is the stage's i-th look as an assessment. A look that skips (an
// input not provided: env.Provided) ends its stage, as a failed one does:
// the looks after it are skipped, not run on what it found missing. That was
// e2e-framework's own behaviour up to v0.6.0; v0.7.0 runs a feature's next
// assessment after a skipped one (pkg/env/env.go, execFeature: wasSkipped).
func (st *stage) look(i int) features.Func {
	s := st.looks[i]
	return func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		t.Helper()
		if i == 0 {
			st.skipped = ""
		}
		if st.skipped != "" {
			t.Skipf("not run: %q skipped", st.skipped)
		}
		defer func() {
			if t.Skipped() {
				st.skipped = s.name
			}
		}()
		return s.fn(ctx, t, cfg)
	}
}

// New starts the steps of the cell id (matrix.Cell's report ID).
func New(id string) *Builder { return &Builder{id: id} }

// Add appends steps in the order they run: each action goes into the Setup
// of its stage, each look into an Assess of its own name; an action after a
// look starts the next stage.
func (b *Builder) Add(steps ...Step) *Builder {
	for _, s := range steps {
		if s.fn == nil || s.kind == 0 {
			panic(fmt.Sprintf("step %q: made without step.Act or step.Look", s.name))
		}
		b.steps = append(b.steps, s)
		last := len(b.stages) - 1
		if last < 0 || s.kind == Acts && len(b.stages[last].looks) > 0 {
			b.stages = append(b.stages, &stage{})
			last++
		}
		if s.kind == Acts {
			b.stages[last].acts = append(b.stages[last].acts, s)
		} else {
			b.stages[last].looks = append(b.stages[last].looks, s)
		}
	}
	return b
}

// Scenario is the cell's steps as e2e-framework features, in order.
func (b *Builder) Scenario() Scenario {
	sc := Scenario{ID: b.id, Steps: append([]Step(nil), b.steps...)}
	taken := map[string]int{}
	for _, s := range b.steps {
		if taken[s.name]++; taken[s.name] == 2 {
			sc.Repeated = append(sc.Repeated, s.name)
		}
	}
	for i, st := range b.stages {
		name := b.id
		if i > 0 {
			first := st.looks
			if len(st.acts) > 0 {
				first = st.acts
			}
			name = fmt.Sprintf("%d %s", i+1, first[0].name)
		}
		f := features.New(name)
		for _, s := range st.acts {
			f = f.WithSetup(s.name, s.fn)
		}
		for i, s := range st.looks {
			f = f.Assess(s.name, st.look(i))
		}
		sc.Stages = append(sc.Stages, f.Feature())
	}
	return sc
}

// Scenario is one cell's steps, ready to run: its stages in order (a stage
// runs only when the one before it ran to its end).
type Scenario struct {
	ID       string
	Stages   []features.Feature
	Steps    []Step
	Repeated []string // names taken by more than one step (a test refuses them)
}

// Names are the scenario's steps' names, in order.
func (s Scenario) Names() []string {
	names := make([]string, 0, len(s.Steps))
	for _, st := range s.Steps {
		names = append(names, st.Name())
	}
	return names
}
