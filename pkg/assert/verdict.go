package assert

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Record collects one cell's verdict and observations while its feature runs.
type Record struct {
	mu           sync.Mutex
	Mitigation   bool // false: the variant is `bug`
	verdict      *bool
	reason       string
	graded       report.Outcome // a verdict of more than two answers (Graded)
	failed       string
	skipped      string
	concluded    bool // the verdict came before the scenario's end (Conclude)
	Observations []string
	spent        map[string]time.Duration
	explained    Explanation
}

// Explanation is, of a graded verdict (make upgrade-check's), the
// behaviour changes of ArgoCD its reason names (pkg/upgrade/changes' ids)
// and whether it found a difference none of them explains: the report's
// cell carries them (report.Cell's Explained, Unexplained).
type Explanation struct {
	IDs         []string
	Unexplained bool
}

// Explain records what a graded verdict's reason explains.
func (r *Record) Explain(e Explanation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.explained = e
}

// Explanation is what Explain recorded (none: nothing).
func (r *Record) Explanation() Explanation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.explained
}

// The phases of a cell's own time that its record measures: the waits for
// a state (Eventually) and the holds of one (Consistently).
const (
	PhaseWaits = "waits"
	PhaseHolds = "holds"
)

// spend adds the time since start to the phase of ctx's record, if any.
func spend(ctx context.Context, phase string, start time.Time) {
	r := RecordFrom(ctx) // a fresh one, dropped, when ctx has none
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.spent == nil {
		r.spent = map[string]time.Duration{}
	}
	r.spent[phase] += time.Since(start)
}

// Spent is the time the cell spent in each phase its record measures.
func (r *Record) Spent() map[string]time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]time.Duration{}
	for k, v := range r.spent {
		out[k] = v
	}
	return out
}

type recordKey struct{}

// WithRecord puts a fresh Record for a cell into ctx.
func WithRecord(ctx context.Context, mitigation bool) (context.Context, *Record) {
	r := &Record{Mitigation: mitigation}
	return context.WithValue(ctx, recordKey{}, r), r
}

// RecordFrom returns the cell's Record (a throwaway one outside a cell).
func RecordFrom(ctx context.Context) *Record {
	if r, ok := ctx.Value(recordKey{}).(*Record); ok {
		return r
	}
	return &Record{}
}

// Observe adds a timestamped observation (it goes into the report).
func (r *Record) Observe(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Observations = append(r.Observations, time.Now().UTC().Format("15:04:05")+" "+fmt.Sprintf(format, args...))
}

// judge records one verdict check; a negative one sticks.
func (r *Record) judge(positive bool, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.verdict != nil && !*r.verdict {
		return
	}
	r.verdict, r.reason = &positive, reason
}

// Fail marks the run itself as failed (ERROR), with where.
func (r *Record) Fail(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == "" {
		r.failed = reason
	}
}

// Skip marks the cell SKIPPED: an input it needs is not there (why says
// what to provide). The scenario stops there; a failure still wins.
func (r *Record) Skip(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skipped == "" {
		r.skipped = why
	}
}

// Conclude gives the cell its verdict before the scenario's end and stops
// it there: what the cluster showed already answers, and the steps after
// would wait on what cannot come (an ArgoCD whose Pods cannot start). The
// cell's cleanup still runs. A failure still wins.
func (r *Record) Conclude(o report.Outcome, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.concluded {
		r.graded, r.reason, r.concluded = o, reason, true
	}
}

// Stopped reports whether the cell has ended before the scenario's end: a
// step failed (ERROR), an input was missing (SKIPPED), or the verdict came
// early (Conclude).
func (r *Record) Stopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed != "" || r.skipped != "" || r.concluded
}

// Outcome is the cell's outcome: ERROR if a step failed, SKIPPED if an input
// was missing, else the verdict.
func (r *Record) Outcome() (report.Outcome, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.failed != "":
		return report.Error, r.failed
	case r.skipped != "":
		return report.Skipped, r.skipped
	case r.graded != "":
		return r.graded, r.reason
	case r.verdict == nil:
		return report.Error, "the scenario reached no verdict"
	case r.Mitigation && *r.verdict:
		return report.Mitigated, r.reason
	case r.Mitigation:
		return report.NotMitigated, r.reason
	case *r.verdict:
		return report.Reproduced, r.reason
	default:
		return report.NotReproduced, r.reason
	}
}

// Step wraps an action: an error marks the cell ERROR and stops the feature.
func Step(what string, action func(ctx context.Context) error) features.Func {
	return func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
		t.Helper()
		start := time.Now()
		if err := action(ctx); err != nil {
			RecordFrom(ctx).Fail(fmt.Sprintf("%s: %v", what, err))
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s (%s)", what, time.Since(start).Round(100*time.Millisecond))
		return ctx
	}
}

// That waits for check within timeout; not holding is an ERROR of the run
// (a precondition of the scenario, not its verdict).
func That(what string, timeout time.Duration, check Check) step.Step {
	return step.Look(what, Step(what, func(ctx context.Context) error {
		if !record(ctx, repro.Wait, what, check, timeout, 0) {
			return nil
		}
		err := Eventually(ctx, what, timeout, check)
		ended(ctx, check, err)
		return err
	}))
}

// Await waits for check within timeout, as That does, in a step named by
// the check's description (NameOf): "application argocd/x operation
// Succeeded and health Healthy". Where the words would say why (a webhook
// that must serve before what follows), That takes a label of its own.
func Await(timeout time.Duration, check Check) step.Step {
	return That(nameOf("Await", check), timeout, check)
}

// Holds requires check to hold for hold; breaking is an ERROR of the run.
func Holds(what string, hold time.Duration, check Check) step.Step {
	return step.Look(what, Step(what, func(ctx context.Context) error {
		if !record(ctx, repro.Hold, what, check, 0, hold) {
			return nil
		}
		err := Consistently(ctx, what, hold, check)
		ended(ctx, check, err)
		return err
	}))
}

// Symptom is the verdict of a `bug` variant: the symptom must hold for the
// whole hold. Holding: REPRODUCED; breaking: NOT_REPRODUCED with what was seen.
// Like every verdict, its step is named by its check's description
// (NameOf: "application argocd/x sync OutOfSync"); where words would say
// more than the check can, Named gives it a label of its own.
func Symptom(hold time.Duration, check Check) step.Step {
	what := nameOf("Symptom", check)
	return step.Look(what, verdict(repro.Step{Kind: repro.Symptom, What: what, Hold: hold}, check,
		func(ctx context.Context) error { return Consistently(ctx, what, hold, check) }))
}

// Resolved is the verdict of a mitigation: check must come true within
// timeout and then hold for hold. MITIGATED, or NOT_MITIGATED with what was seen.
func Resolved(timeout, hold time.Duration, check Check) step.Step {
	what := nameOf("Resolved", check)
	return step.Look(what, verdict(repro.Step{Kind: repro.Resolved, What: what, Timeout: timeout, Hold: hold}, check, func(ctx context.Context) error {
		if err := Eventually(ctx, what, timeout, check); err != nil {
			return err
		}
		return Consistently(ctx, what, hold, check)
	}))
}

// Unsettled is the verdict of a check whose clean state must come and stay
// (make conform's): the class shows, REPRODUCED, unless clean comes true
// within timeout and then holds for hold; NOT_REPRODUCED when it does. What
// was seen says how it did not settle.
func Unsettled(timeout, hold time.Duration, clean Check) step.Step {
	what := nameOf("Unsettled", clean)
	return step.Look(what, judged(repro.Step{Kind: repro.Unsettled, What: what, Timeout: timeout, Hold: hold}, clean, true, func(ctx context.Context) error {
		if err := Eventually(ctx, what, timeout, clean); err != nil {
			return err
		}
		return Consistently(ctx, what, hold, clean)
	}))
}

func verdict(step repro.Step, check Check, run func(ctx context.Context) error) features.Func {
	return judged(step, check, false, run)
}

// judged records a verdict: run ending well is a positive verdict, a wait
// that ran out or a hold that broke a negative one (the other way round when
// inverted), anything else an error of the run.
func judged(step repro.Step, check Check, inverted bool, run func(ctx context.Context) error) features.Func {
	what := step.What
	return func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
		t.Helper()
		step.Check = ScriptOf(ctx, check)
		if !repro.Record(ctx, step) {
			return ctx
		}
		rec := RecordFrom(ctx)
		err := run(ctx)
		ended(ctx, check, err)
		var timeout *TimeoutError
		var broken *BrokenError
		switch {
		case err == nil:
			rec.judge(!inverted, what)
			rec.Observe("verdict: %s: held", what)
		case errors.As(err, &timeout) || errors.As(err, &broken):
			rec.judge(inverted, err.Error())
			rec.Observe("verdict: %s: %v", what, err)
		default:
			rec.Fail(fmt.Sprintf("%s: %v", what, err))
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("verdict %s: %v", what, err)
		return ctx
	}
}

// Occurs is the verdict of a `bug` variant whose symptom is an event (a
// namespace deleted): REPRODUCED when check comes true within timeout,
// NOT_REPRODUCED with what was seen when it does not.
func Occurs(timeout time.Duration, check Check) step.Step {
	what := nameOf("Occurs", check)
	return step.Look(what, verdict(repro.Step{Kind: repro.Occurs, What: what, Timeout: timeout}, check,
		func(ctx context.Context) error { return Eventually(ctx, what, timeout, check) }))
}

// Graded is the verdict of a cell whose answer is one of several outcomes
// (make upgrade-check's SAFE, CHANGED, BROKEN): grade says which, from what
// the cell's steps read, and why. An error of grade is an ERROR of the run.
// The reproduction script prints it as an observation it does not script.
func Graded(what string, grade func(ctx context.Context) (report.Outcome, string, error)) step.Step {
	return step.Look(what, func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
		t.Helper()
		if !repro.Record(ctx, repro.Step{Kind: repro.Observe, What: what, Check: repro.Unscripted()}) {
			return ctx
		}
		o, why, err := grade(ctx)
		rec := RecordFrom(ctx)
		if err != nil {
			rec.Fail(fmt.Sprintf("%s: %v", what, err))
			t.Fatalf("%s: %v", what, err)
		}
		rec.mu.Lock()
		rec.graded, rec.reason = o, why
		rec.mu.Unlock()
		rec.Observe("verdict: %s: %s: %s", what, o, why)
		t.Logf("verdict %s: %s: %s", what, o, why)
		return ctx
	})
}
