package assert

import (
	"context"
	"errors"
	"time"

	"github.com/gitops-conformance/suite/pkg/repro"
)

// Scripted gives check its form in a reproduction's repro.sh: script, the
// same look in bash over kubectl (pkg/repro's looks), made when the step
// that uses check is recorded.
func Scripted(check Check, script func(ctx context.Context) (*repro.Check, error)) Check {
	return func(ctx context.Context) (bool, string, error) {
		if _, ok := ctx.Value(nameKey{}).(*naming); ok {
			return false, "", errNamed // no description of its own (NamedOf gives one)
		}
		if d, ok := ctx.Value(describeKey{}).(*describing); ok {
			d.check, d.err = script(ctx)
			return false, "", errDescribed
		}
		return check(ctx)
	}
}

type describeKey struct{}

type describing struct {
	check *repro.Check
	err   error
}

var errDescribed = errors.New("described, not looked at")

// ScriptOf is check's form in repro.sh; a check without one (Scripted
// never gave it one) is repro.Unscripted.
func ScriptOf(ctx context.Context, check Check) *repro.Check {
	d := &describing{}
	_, _, err := check(context.WithValue(ctx, describeKey{}, d))
	if !errors.Is(err, errDescribed) || d.err != nil || d.check == nil {
		return repro.Unscripted()
	}
	return d.check
}

// record adds a wait or verdict to the cell's reproduction record and
// reports whether to carry it out (not while a branch the cell did not take
// is written down).
func record(ctx context.Context, kind repro.Kind, what string, check Check, timeout, hold time.Duration) bool {
	return repro.Record(ctx, repro.Step{Kind: kind, What: what, Check: ScriptOf(ctx, check), Timeout: timeout, Hold: hold})
}

// ended records what check saw when a wait or verdict ended: the evidence
// a reproduction's README quotes.
func ended(ctx context.Context, check Check, err error) {
	if repro.Planning(ctx) {
		return
	}
	result := "held"
	if err != nil {
		result = err.Error()
	}
	_, seen, lookErr := check(ctx)
	if lookErr != nil {
		seen = lookErr.Error()
	}
	repro.Ended(ctx, seen, result)
}

// Unscripted marks a check a reproduction's script does not take (it reads
// more than a line of kubectl would): describing it for the script runs
// nothing, where describing a plain check runs it once more.
func Unscripted(check Check) Check {
	return Scripted(check, func(context.Context) (*repro.Check, error) { return repro.Unscripted(), nil })
}

// Later is a check made when it looks, from what the cell knows by then
// (what a chart rendered, what an earlier step read), in its bash form too.
func Later(build func(ctx context.Context) (Check, error)) Check {
	return Scripted(func(ctx context.Context) (bool, string, error) {
		c, err := build(ctx)
		if err != nil {
			return false, "", err
		}
		return c(ctx)
	}, func(ctx context.Context) (*repro.Check, error) {
		c, err := build(ctx)
		if err != nil {
			return nil, err
		}
		return ScriptOf(ctx, c), nil
	})
}

// Constant is a look whose answer is known without looking (a chart with
// no workload, no webhook): ok, with why as what it saw and as its
// description.
func Constant(ok bool, why string) Check {
	shell := "false"
	if ok {
		shell = "true"
	}
	return Named(why, Scripted(func(context.Context) (bool, string, error) { return ok, why, nil },
		func(context.Context) (*repro.Check, error) { return &repro.Check{Shell: shell}, nil }))
}
