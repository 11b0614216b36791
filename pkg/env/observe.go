package env

import (
	"context"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Observe looks once with check and records what it saw as an observation
// of the report; it never fails the cell (a measurement, not a verdict).
func Observe(what string, check assert.Check) step.Step {
	return look("observe "+what, func(ctx context.Context) error {
		if !repro.Record(ctx, repro.Step{Kind: repro.Observe, What: what, Check: assert.ScriptOf(ctx, check)}) {
			return nil
		}
		ok, seen, err := check(ctx)
		if err != nil {
			seen = "error: " + err.Error()
		}
		lifecycle.Note(ctx, "%s: %v (%s)", what, ok, seen)
		return nil
	})
}

// See is Observe named by the check's description (assert.NameOf): a look
// whose words would only repeat what the check says.
func See(check assert.Check) step.Step {
	return Observe(describe("See", check), check)
}

// SeeWithin is ObserveWithin named by the check's description.
func SeeWithin(timeout time.Duration, check assert.Check) step.Step {
	return ObserveWithin(describe("SeeWithin", check), timeout, check)
}

// describe is check's description, for a step's name; a check without one
// is a mistake of the scenario, caught when its steps are built.
func describe(verb string, check assert.Check) string {
	d, ok := assert.NameOf(check)
	if !ok || d.String() == "" {
		panic("env." + verb + ": a check without a description: give it one with assert.Named")
	}
	return d.String()
}

// ObserveWithin waits up to timeout for check and records the outcome as an
// observation either way: evidence for the report, never a verdict or an error.
func ObserveWithin(what string, timeout time.Duration, check assert.Check) step.Step {
	return ObserveInto(what, timeout, check, nil)
}

// Observed is what an observation saw: whether the check held within its
// wait, after how long, and what the last look saw.
type Observed struct {
	Held  bool
	After time.Duration
	Seen  string
}

// ObserveInto is ObserveWithin that also keeps what it saw in dst (when not
// nil), for a verdict the cell reaches later. dst stays zero in a plan.
func ObserveInto(what string, timeout time.Duration, check assert.Check, dst *Observed) step.Step {
	return look("observe "+what, func(ctx context.Context) error {
		if !repro.Record(ctx, repro.Step{Kind: repro.Observe, What: what, Check: assert.ScriptOf(ctx, check), Timeout: timeout}) {
			return nil
		}
		start := time.Now()
		err := assert.Eventually(ctx, what, timeout, check)
		o := Observed{Held: err == nil, After: time.Since(start).Round(time.Second)}
		if err != nil {
			o.Seen = err.Error()
			lifecycle.Note(ctx, "observed: %s: no: %v", what, err)
		} else {
			_, o.Seen, _ = check(ctx)
			lifecycle.Note(ctx, "observed: %s: yes, after %s: %s", what, o.After, o.Seen)
		}
		if dst != nil {
			*dst = o
		}
		return nil
	})
}

// Snapshot dumps the cell's evidence as it is now into the subdirectory name
// of the cell's evidence: what a later step changes (an ArgoCD upgrade
// replaces the controller and its log; an unblock deletes the held object)
// stays on record as it was at the verdict.
func Snapshot(name string) step.Step {
	return lookInRun("snapshot evidence "+name, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		r.DumpEvidence(ctx, c, name)
		lifecycle.Note(ctx, "evidence as of this step (objects, events, controller logs): %s/", name)
		return nil
	})
}

// Timeline records every change of the objects (kind, namespace, name
// triples) from now until the cell's evidence is dumped, into
// timeline-<name>.txt: their fate with timestamps, finalizers,
// ownerReferences and how they were deleted.
func Timeline(name string, objs ...lifecycle.Object) step.Step {
	return lookInRun("timeline "+name, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		var refs []string
		for _, o := range objs {
			refs = append(refs, lifecycle.Ref(o.Kind, o.Namespace, o.Name))
		}
		c.Step("timeline %s: %s", name, strings.Join(refs, ", "))
		return r.StartTimeline(ctx, c, name, objs...)
	})
}

// WatchLog adds a workload's log over the cell (kind/name, as kubectl logs
// takes it) to the cell's evidence.
func WatchLog(workload Object) step.Step {
	namespace, name := workload.Namespace, workload.Name
	return lookInRun("log of "+namespace+"/"+name, func(ctx context.Context) error {
		lifecycle.CellFrom(ctx).WatchLog(namespace, name)
		return nil
	})
}

// Object refers to one object: what every verb and check takes. A scenario
// makes it with its constructor (Job, Deployment, Namespace, CRD, Custom,
// ...), which knows the kind as kubectl takes it and as the API names it.
type Object = lifecycle.Object

// Selection is the objects of some kinds matching a label selector.
type Selection = lifecycle.Selection
