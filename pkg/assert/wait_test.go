package assert

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
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
}
