package assert

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// Intervals is the one table of timeouts and polling intervals.
var Intervals = struct {
	Poll    time.Duration // between two looks a watch cannot follow
	Idle    time.Duration // between two watched looks when nothing changed
	Sync    time.Duration // an Application reaching a sync state
	Rollout time.Duration // Deployments becoming Available
	Install time.Duration // a whole component installing
	// Holds are what a verdict means by "stays so" (a sync stuck, an
	// Application OutOfSync across refreshes, a configuration left behind):
	// longer than the controllers involved take to act on their own (ArgoCD
	// and Kubernetes' controllers requeue in seconds), so a state that holds
	// is stuck, not slow. They are part of each verdict's definition: the
	// expectations in suites/matrix.yaml were measured with them, and a
	// change is a change of meaning to measure again, not a speed-up. A hold
	// looks at every change of what it reads (watches), not only every Poll.
	Hold      time.Duration // how long "stays stuck" must hold
	HoldShort time.Duration // a shorter hold for states that settle fast
}{
	Poll:      2 * time.Second,
	Idle:      15 * time.Second,
	Sync:      3 * time.Minute,
	Rollout:   4 * time.Minute,
	Install:   6 * time.Minute,
	Hold:      40 * time.Second,
	HoldShort: 20 * time.Second,
}

// pace is how the waits of a ctx tell time: how often they look (Intervals'
// Poll and Idle unless WithIntervals says otherwise) and the clock they read.
type pace struct {
	poll, idle time.Duration
	clock      clock
}

// clock is the time the waits read: the real one unless ctx carries another
// (a test's, which moves only when the test says).
type clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

type paceKey struct{}

func paceOf(ctx context.Context) pace {
	if p, ok := ctx.Value(paceKey{}).(pace); ok {
		return p
	}
	return pace{poll: Intervals.Poll, idle: Intervals.Idle, clock: realClock{}}
}

// WithIntervals returns ctx whose waits (Eventually, Consistently) look
// every poll where no watch follows what they read, and after idle where one
// does and nothing changed, instead of Intervals.Poll and Intervals.Idle: for
// checks that settle faster than a cluster's, as a test's do. A zero interval
// keeps the one ctx had.
func WithIntervals(ctx context.Context, poll, idle time.Duration) context.Context {
	p := paceOf(ctx)
	if poll > 0 {
		p.poll = poll
	}
	if idle > 0 {
		p.idle = idle
	}
	return context.WithValue(ctx, paceKey{}, p)
}

// withClock returns ctx whose waits read time from c.
func withClock(ctx context.Context, c clock) context.Context {
	p := paceOf(ctx)
	p.clock = c
	return context.WithValue(ctx, paceKey{}, p)
}

// Check looks once: ok when the condition holds; seen describes what it saw
// ("is Progressing", "2 Completed event(s), none containing ..."). A check
// made by pkg/check, or given one with Named, also carries a description of
// what it holds for (NameOf): the name of the step that waits for it.
// A look has three answers: yes, no, or could not tell (an error). A check
// whose read failed (an API error, a timeout) returns Unknown(err): Eventually
// keeps looking, and a wait that ends on it, or a hold it breaks, is an error
// of the run, never a verdict. Any other error ends the wait at once.
type Check func(ctx context.Context) (ok bool, seen string, err error)

// UnknownError is a look that could not tell: the read failed.
type UnknownError struct{ Err error }

func (e *UnknownError) Error() string { return "could not tell: " + e.Err.Error() }
func (e *UnknownError) Unwrap() error { return e.Err }

// Unknown marks err as a failed read: the check could not tell.
func Unknown(err error) error { return &UnknownError{Err: err} }

// IsUnknown reports whether err is a look that could not tell.
func IsUnknown(err error) bool {
	var u *UnknownError
	return errors.As(err, &u)
}

// TimeoutError is a wait that ran out; Seen is the last observation.
type TimeoutError struct {
	What    string
	Timeout time.Duration
	Seen    string
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("wait %s (<=%s): saw %s", e.What, e.Timeout, e.Seen)
}

// Eventually looks until check holds or timeout passes. It looks again as
// soon as an object the last look read changes (kube.Watch), or after
// Intervals.Poll when the look read something no watch follows (Intervals.Idle
// when one does; WithIntervals changes both for ctx).
//
// The timeout bounds when a look may start, not the look itself: a look in
// flight when it passes runs to its end under ctx and the reads' own bounds
// (a request times out by itself, kube.RequestTimeout), and the wait ends on
// what that look answered. Cut by the wait's deadline, a slow read that would
// have answered became "could not tell" (context deadline exceeded) and the
// cell ERROR; a read that fails on its own still is "could not tell".
func Eventually(ctx context.Context, what string, timeout time.Duration, check Check) error {
	defer spend(ctx, PhaseWaits, time.Now())
	p := paceOf(ctx)
	end := p.clock.Now().Add(timeout)
	ctx, w, stop := kube.WithWatch(ctx)
	defer stop()
	seen := "nothing yet"
	for {
		w.Look()
		ok, s, err := check(ctx)
		if s != "" {
			seen = s
		}
		if err != nil && ctx.Err() != nil {
			return ctx.Err() // the cell was stopped, not a look that failed
		}
		if errors.Is(err, context.DeadlineExceeded) && !IsUnknown(err) {
			err = Unknown(err) // a read's own timeout: could not tell
		}
		var unknown error // this look could not tell
		switch {
		case IsUnknown(err):
			unknown, seen = err, err.Error()
		case err != nil:
			return fmt.Errorf("wait %s: %w", what, err)
		case ok:
			return nil
		}
		left := end.Sub(p.clock.Now())
		if left <= 0 {
			if unknown != nil {
				// not a "no": the wait ended on a look that could not tell
				return fmt.Errorf("wait %s (<=%s): %w", what, timeout, unknown)
			}
			return &TimeoutError{What: what, Timeout: timeout, Seen: seen}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.Changed():
		case <-p.clock.After(min(w.Sleep(p.poll, p.idle), left)):
		}
	}
}

// BrokenError is a Consistently whose condition stopped holding.
type BrokenError struct {
	What  string
	After time.Duration
	Seen  string
}

func (e *BrokenError) Error() string {
	return fmt.Sprintf("hold %s: broke after %s: saw %s", e.What, e.After.Round(time.Second), e.Seen)
}

// Consistently requires check to hold at every look for the whole hold. It
// looks again whenever an object the last look read changes (so a state
// that flips and flips back between two polls still breaks the hold), at
// least every Intervals.Poll (WithIntervals), and once more at the hold's end.
func Consistently(ctx context.Context, what string, hold time.Duration, check Check) error {
	defer spend(ctx, PhaseHolds, time.Now())
	p := paceOf(ctx)
	start := p.clock.Now()
	ctx, w, stop := kube.WithWatch(ctx)
	defer stop()
	for {
		w.Look()
		ok, seen, err := check(ctx)
		if err != nil {
			return fmt.Errorf("hold %s: %w", what, err)
		}
		if !ok {
			return &BrokenError{What: what, After: p.clock.Now().Sub(start), Seen: seen}
		}
		left := hold - p.clock.Now().Sub(start)
		if left <= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-w.Changed():
		case <-p.clock.After(min(p.poll, left)):
		}
	}
}

// All holds when every check holds; seen joins what each saw. Its
// description joins theirs with "and" (see compose).
func All(checks ...Check) Check {
	return composed("and", checks, Scripted(combine(true, checks), func(ctx context.Context) (*repro.Check, error) {
		return repro.All(scripts(ctx, checks)...), nil
	}))
}

// Any holds when at least one check holds; seen joins what each saw. Its
// description joins theirs with "or".
func Any(checks ...Check) Check {
	return composed("or", checks, Scripted(combine(false, checks), func(ctx context.Context) (*repro.Check, error) {
		return repro.Any(scripts(ctx, checks)...), nil
	}))
}

// composed is check described by its parts, when each has a description.
func composed(conj string, parts []Check, check Check) Check {
	return func(ctx context.Context) (bool, string, error) {
		if n, ok := ctx.Value(nameKey{}).(*naming); ok {
			n.d, n.ok = compose(conj, parts)
			return false, "", errNamed
		}
		return check(ctx)
	}
}

// Not holds when check does not (a look that could not tell still could
// not); seen is check's, its description "not" before check's.
func Not(check Check) Check {
	not := Scripted(func(ctx context.Context) (bool, string, error) {
		ok, seen, err := check(ctx)
		return !ok && err == nil, seen, err
	}, func(ctx context.Context) (*repro.Check, error) {
		return repro.Not(ScriptOf(ctx, check)), nil
	})
	return func(ctx context.Context) (bool, string, error) {
		if n, ok := ctx.Value(nameKey{}).(*naming); ok {
			if d, has := NameOf(check); has {
				n.d, n.ok = Description{Of: d.Of, Is: "not " + d.Is}, true
			}
			return false, "", errNamed
		}
		return not(ctx)
	}
}

func scripts(ctx context.Context, checks []Check) []*repro.Check {
	out := make([]*repro.Check, len(checks))
	for i, c := range checks {
		out[i] = ScriptOf(ctx, c)
	}
	return out
}

func combine(all bool, checks []Check) Check {
	return func(ctx context.Context) (bool, string, error) {
		result, seen := all, make([]string, 0, len(checks))
		for _, check := range checks {
			ok, s, err := check(ctx)
			if err != nil {
				return false, strings.Join(append(seen, s), "; "), err
			}
			if all {
				result = result && ok
			} else {
				result = result || ok
			}
			if !slices.Contains(seen, s) { // checks on one object see the same state
				seen = append(seen, s)
			}
		}
		return result, strings.Join(seen, "; "), nil
	}
}
