package assert

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gitops-conformance/suite/internal/kube/kubetest"
)

func fastIntervals(t *testing.T) {
	old := Intervals.Poll
	Intervals.Poll = time.Millisecond
	t.Cleanup(func() { Intervals.Poll = old })
}

func TestEventuallyReportsLastSeen(t *testing.T) {
	fastIntervals(t)
	n := 0
	err := Eventually(context.Background(), "Application argocd/x Synced", 30*time.Millisecond, func(context.Context) (bool, string, error) {
		n++
		return false, "OutOfSync", nil
	})
	var te *TimeoutError
	if !errors.As(err, &te) || te.Seen != "OutOfSync" || n < 2 {
		t.Fatalf("err = %v after %d looks", err, n)
	}
	if !strings.HasPrefix(err.Error(), "wait Application argocd/x Synced (<=30ms): saw OutOfSync") {
		t.Fatalf("message = %q", err)
	}
}

func TestEventuallySucceedsAndStopsOnError(t *testing.T) {
	fastIntervals(t)
	n := 0
	if err := Eventually(context.Background(), "x", time.Second, func(context.Context) (bool, string, error) {
		n++
		return n == 3, "", nil
	}); err != nil || n != 3 {
		t.Fatalf("err = %v, n = %d", err, n)
	}
	boom := errors.New("forbidden")
	if err := Eventually(context.Background(), "x", time.Second, func(context.Context) (bool, string, error) {
		return false, "", boom
	}); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
}

func TestConsistently(t *testing.T) {
	fastIntervals(t)
	if err := Consistently(context.Background(), "stuck", 10*time.Millisecond, func(context.Context) (bool, string, error) {
		return true, "Running", nil
	}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := Consistently(context.Background(), "stuck", time.Second, func(context.Context) (bool, string, error) {
		n++
		return n < 3, "Succeeded", nil
	})
	var be *BrokenError
	if !errors.As(err, &be) || be.Seen != "Succeeded" {
		t.Fatalf("err = %v", err)
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
	fastIntervals(t)
	n := 0
	err := Eventually(context.Background(), "namespace x gone", time.Second, func(context.Context) (bool, string, error) {
		n++
		if n < 4 {
			return false, "", Unknown(errors.New("connection refused"))
		}
		return true, "not found", nil
	})
	if err != nil || n != 4 {
		t.Fatalf("an API hiccup must be waited out: err %v after %d looks", err, n)
	}
	err = Eventually(context.Background(), "namespace x gone", 20*time.Millisecond, func(context.Context) (bool, string, error) {
		return false, "", Unknown(errors.New("connection refused"))
	})
	var te *TimeoutError
	if err == nil || errors.As(err, &te) || !IsUnknown(err) || !strings.Contains(err.Error(), "could not tell: connection refused") {
		t.Fatalf("a wait ending on a failed read must be could-not-tell, not a timeout: %v", err)
	}
}

func TestConsistentlyBrokenByUnknownIsNoVerdict(t *testing.T) {
	fastIntervals(t)
	err := Consistently(context.Background(), "OutOfSync", time.Second, func(context.Context) (bool, string, error) {
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
	defer func(p, i time.Duration) { Intervals.Poll, Intervals.Idle = p, i }(Intervals.Poll, Intervals.Idle)
	Intervals.Poll, Intervals.Idle = time.Hour, time.Hour
	cm := kubetest.Object("v1", "ConfigMap", "ns", "flag", map[string]any{"data": map[string]any{"v": "no"}})
	c := kubetest.Client(nil, cm)
	looks := 0
	check := func(ctx context.Context) (bool, string, error) {
		looks++
		o, err := c.Get(ctx, "configmaps", "ns", "flag")
		if err != nil {
			return false, "", Unknown(err)
		}
		v, _, _ := unstructured.NestedString(o.Object, "data", "v")
		return v == "yes", "v=" + v, nil
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		o := cm.DeepCopy()
		_ = unstructured.SetNestedField(o.Object, "yes", "data", "v")
		if _, err := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("ns").
			Update(context.Background(), o, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	start := time.Now()
	if err := Eventually(context.Background(), "flag yes", 10*time.Second, check); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second || looks < 2 {
		t.Errorf("took %s and %d looks: the change did not wake the wait", d, looks)
	}

	// a look that reads nothing a watch follows sleeps Poll
	Intervals.Poll = 50 * time.Millisecond
	n := 0
	if err := Eventually(context.Background(), "third look", 10*time.Second, func(context.Context) (bool, string, error) {
		n++
		return n == 3, "", nil
	}); err != nil {
		t.Fatal(err)
	}
}

// A look still reading when the wait's time is up ends on what it answers:
// the deadline stops new looks, it does not cut the read in flight (a slow
// API server made verdict reads "could not tell" that would have answered).
func TestEventuallyLetsTheLastLookAnswer(t *testing.T) {
	fastIntervals(t)
	slow := func(answer bool) Check {
		return func(ctx context.Context) (bool, string, error) {
			select {
			case <-ctx.Done():
				return false, "", Unknown(ctx.Err())
			case <-time.After(40 * time.Millisecond): // longer than the wait
			}
			if answer {
				return true, "Active", nil
			}
			return false, "namespace x not found", nil
		}
	}
	err := Eventually(context.Background(), "namespace x Active", 10*time.Millisecond, slow(false))
	var te *TimeoutError
	if !errors.As(err, &te) || te.Seen != "namespace x not found" {
		t.Fatalf("a slow look that answered no must end the wait on that answer, got %v", err)
	}
	if err := Eventually(context.Background(), "namespace x Active", 10*time.Millisecond, slow(true)); err != nil {
		t.Fatalf("a slow look that answered yes must end the wait held, got %v", err)
	}
	// a read that times out by itself is could-not-tell, never a no
	err = Eventually(context.Background(), "namespace x Active", 10*time.Millisecond, func(context.Context) (bool, string, error) {
		return false, "", context.DeadlineExceeded
	})
	if !IsUnknown(err) || errors.As(err, &te) {
		t.Fatalf("a read's own timeout must be could-not-tell, got %v", err)
	}
	// the cell stopped: the wait ends with it
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Eventually(ctx, "x", time.Second, slow(false)); !errors.Is(err, context.Canceled) {
		t.Fatalf("a stopped cell must end the wait with its error, got %v", err)
	}
}
