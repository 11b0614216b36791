package assert

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gitops-conformance/suite/internal/kube/kubetest"
)

// fakeClock is time the test moves. A wait's sleep passes at once and moves
// Now by what the wait asked for, so a test reads how long the waits slept
// (slept) instead of timing them. A frozen clock never ends a sleep: only a
// watched change or ctx wakes the wait.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	slept  []time.Duration
	frozen bool
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	ch := make(chan time.Time, 1)
	if !c.frozen {
		c.now = c.now.Add(d)
		ch <- c.now
	}
	return ch
}

// advance moves Now by d: a look that takes d.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}

// fakeTime returns a context whose waits read a new fakeClock.
func fakeTime() (context.Context, *fakeClock) {
	c := &fakeClock{now: time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)}
	return withClock(context.Background(), c), c
}

func TestEventuallyReportsLastSeen(t *testing.T) {
	ctx, clk := fakeTime()
	ctx = WithIntervals(ctx, 10*time.Millisecond, 0)
	n := 0
	err := Eventually(ctx, "Application argocd/x Synced", 30*time.Millisecond, func(context.Context) (bool, string, error) {
		n++
		return false, "OutOfSync", nil
	})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Seen != "OutOfSync" || n != 4 {
		t.Fatalf("err = %v after %d looks, want a timeout after 4 (at 0, 10, 20 and 30ms)", err, n)
	}
	if !strings.HasPrefix(err.Error(), "wait Application argocd/x Synced (<=30ms): saw OutOfSync") {
		t.Fatalf("message = %q", err)
	}
	if got, want := clk.sleeps(), []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}; !slices.Equal(got, want) {
		t.Errorf("slept %v, want %v: WithIntervals' poll", got, want)
	}
}

func TestEventuallySucceedsAndStopsOnError(t *testing.T) {
	ctx, _ := fakeTime()
	n := 0
	if err := Eventually(ctx, "x", time.Minute, func(context.Context) (bool, string, error) {
		n++
		return n == 3, "", nil
	}); err != nil || n != 3 {
		t.Fatalf("err = %v, n = %d", err, n)
	}
	boom := errors.New("forbidden")
	if err := Eventually(ctx, "x", time.Minute, func(context.Context) (bool, string, error) {
		return false, "", boom
	}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestConsistently(t *testing.T) {
	ctx, clk := fakeTime()
	looks := 0
	if err := Consistently(ctx, "stuck", 5*time.Second, func(context.Context) (bool, string, error) {
		looks++
		return true, "Running", nil
	}); err != nil {
		t.Fatal(err)
	}
	// every Poll (2s), and once more at the hold's end
	if got, want := clk.sleeps(), []time.Duration{Intervals.Poll, Intervals.Poll, time.Second}; looks != 4 || !slices.Equal(got, want) {
		t.Errorf("%d looks, slept %v; want 4 looks, slept %v", looks, got, want)
	}
	n := 0
	err := Consistently(ctx, "stuck", time.Minute, func(context.Context) (bool, string, error) {
		n++
		return n < 3, "Succeeded", nil
	})
	var be *BrokenError
	if !errors.As(err, &be) || be.Seen != "Succeeded" || be.After != 2*Intervals.Poll {
		t.Fatalf("err = %v, want broken at the third look, after two polls", err)
	}
}

func TestAny(t *testing.T) {
	yes := func(context.Context) (bool, string, error) { return true, "yes", nil }
	no := func(context.Context) (bool, string, error) { return false, "no", nil }
	if ok, seen, _ := Any(no, yes)(context.Background()); !ok || seen != "no; yes" {
		t.Fatalf("Any(no, yes) = %v %q", ok, seen)
	}
	if ok, seen, _ := Any(no, no)(context.Background()); ok || seen != "no" {
		t.Fatalf("Any(no, no) = %v %q, want false and one \"no\"", ok, seen)
	}
	if ok, seen, _ := All(yes, no, yes)(context.Background()); ok || seen != "yes; no" {
		t.Fatalf("All(yes, no, yes) = %v %q", ok, seen)
	}
	if ok, seen, _ := Not(no)(context.Background()); !ok || seen != "no" {
		t.Fatalf("Not(no) = %v %q", ok, seen)
	}
	unknown := func(context.Context) (bool, string, error) { return false, "", Unknown(errors.New("refused")) }
	if ok, _, err := Not(unknown)(context.Background()); ok || !IsUnknown(err) {
		t.Fatalf("Not of a look that could not tell still could not tell: %v %v", ok, err)
	}
	if ok, _, _ := All()(context.Background()); !ok {
		t.Fatal("All() holds: every one of none holds")
	}
	if ok, _, _ := Any()(context.Background()); ok {
		t.Fatal("Any() does not hold")
	}
}

// A look that could not tell keeps an Eventually looking (the API server may
// come back) but never satisfies it, and a wait that ends on one is an error
// of the run, not a "no" a verdict could rest on.
func TestEventuallyWaitsOutUnknownButNeverTakesIt(t *testing.T) {
	ctx, _ := fakeTime()
	n := 0
	err := Eventually(ctx, "namespace x gone", time.Minute, func(context.Context) (bool, string, error) {
		n++
		if n < 4 {
			return false, "", Unknown(errors.New("connection refused"))
		}
		return true, "not found", nil
	})
	if err != nil || n != 4 {
		t.Fatalf("an API hiccup must be waited out: err %v after %d looks", err, n)
	}
	err = Eventually(ctx, "namespace x gone", 20*time.Millisecond, func(context.Context) (bool, string, error) {
		return false, "", Unknown(errors.New("connection refused"))
	})
	var te *TimeoutError
	if err == nil || errors.As(err, &te) || !IsUnknown(err) || !strings.Contains(err.Error(), "could not tell: connection refused") {
		t.Fatalf("a wait ending on a failed read must be could-not-tell, not a timeout: %v", err)
	}
}

func TestConsistentlyBrokenByUnknownIsNoVerdict(t *testing.T) {
	ctx, _ := fakeTime()
	err := Consistently(ctx, "OutOfSync", time.Minute, func(context.Context) (bool, string, error) {
		return false, "", Unknown(errors.New("etcdserver: request timed out"))
	})
	var be *BrokenError
	if err == nil || errors.As(err, &be) || !IsUnknown(err) {
		t.Fatalf("a failed read must not break a hold as a verdict: %v", err)
	}
}

// A wait whose look reads through kube.Client ends when what it read
// changes, not on the next poll; a look no watch can follow polls.
func TestEventuallyWakesOnAWatchedChange(t *testing.T) {
	ctx, clk := fakeTime()
	clk.frozen = true // no sleep ends: only the change can wake the wait
	cm := kubetest.Object("v1", "ConfigMap", "ns", "flag", map[string]any{"data": map[string]any{"v": "no"}})
	c := kubetest.Client(nil, cm)
	looks := 0
	looked := make(chan struct{}) // the first look read the flag: its watch is open
	check := func(ctx context.Context) (bool, string, error) {
		o, err := c.Get(ctx, "configmaps", "ns", "flag")
		if looks++; looks == 1 {
			close(looked)
		}
		if err != nil {
			return false, "", Unknown(err)
		}
		v, _, _ := unstructured.NestedString(o.Object, "data", "v")
		return v == "yes", "v=" + v, nil
	}
	go func() {
		<-looked
		o := cm.DeepCopy()
		_ = unstructured.SetNestedField(o.Object, "yes", "data", "v")
		if _, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns").
			Update(context.Background(), o, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	if err := Eventually(ctx, "flag yes", time.Hour, check); err != nil {
		t.Fatal(err)
	}
	// a watched look sleeps Idle, a safety net the change cut short
	if got, want := clk.sleeps(), []time.Duration{Intervals.Idle}; looks != 2 || !slices.Equal(got, want) {
		t.Errorf("%d looks, slept %v; want 2 looks, woken by the change from a sleep of %v", looks, got, want)
	}

	// a look that reads nothing a watch follows sleeps Poll
	ctx, clk = fakeTime()
	n := 0
	if err := Eventually(ctx, "third look", time.Hour, func(context.Context) (bool, string, error) {
		n++
		return n == 3, "", nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := clk.sleeps(), []time.Duration{Intervals.Poll, Intervals.Poll}; !slices.Equal(got, want) {
		t.Errorf("slept %v, want %v", got, want)
	}
}

// A look still reading when the wait's time is up ends on what it answers:
// the deadline stops new looks, it does not cut the read in flight (a slow
// API server made verdict reads "could not tell" that would have answered).
func TestEventuallyLetsTheLastLookAnswer(t *testing.T) {
	ctx, clk := fakeTime()
	slow := func(answer bool) Check {
		return func(ctx context.Context) (bool, string, error) {
			if ctx.Err() != nil {
				return false, "", Unknown(ctx.Err())
			}
			clk.advance(time.Minute) // longer than the wait
			if answer {
				return true, "Active", nil
			}
			return false, "namespace x not found", nil
		}
	}
	err := Eventually(ctx, "namespace x Active", 10*time.Second, slow(false))
	var te *TimeoutError
	if !errors.As(err, &te) || te.Seen != "namespace x not found" {
		t.Fatalf("a slow look that answered no must end the wait on that answer, got %v", err)
	}
	if err := Eventually(ctx, "namespace x Active", 10*time.Second, slow(true)); err != nil {
		t.Fatalf("a slow look that answered yes must end the wait held, got %v", err)
	}
	if got := clk.sleeps(); len(got) != 0 {
		t.Errorf("slept %v: a look that outlasts the wait leaves no time to sleep", got)
	}
	// a read that times out by itself is could-not-tell, never a no
	err = Eventually(ctx, "namespace x Active", 10*time.Second, func(context.Context) (bool, string, error) {
		return false, "", context.DeadlineExceeded
	})
	if !IsUnknown(err) || errors.As(err, &te) {
		t.Fatalf("a read's own timeout must be could-not-tell, got %v", err)
	}
	// the cell stopped: the wait ends with it
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := Eventually(ctx, "x", time.Second, slow(false)); !errors.Is(err, context.Canceled) {
		t.Fatalf("a stopped cell must end the wait with its error, got %v", err)
	}
}
