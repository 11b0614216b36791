package kube

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
)

// Watch follows the objects the looks of one wait read, so that the wait
// wakes when one of them changes instead of on its next poll. Every Get and
// List through a Client whose context carries a Watch opens a watch on what
// it read (from the resourceVersion it read, so no change in between is
// missed), once per wait. A look that did something no watch can follow (an
// exec in a Pod, a server-side dry run, a raw GET), or read nothing, makes
// the wait poll as before.
type Watch struct {
	ctx     context.Context
	changed chan struct{}

	mu       sync.Mutex
	watching map[watchKey]bool
	blind    bool // this look did something no watch follows
	followed int  // watches this look read through (opened or already open)
}

type watchKey struct {
	resource              string
	namespace, name, sels string
}

type watchCtxKey struct{}

// WithWatch returns ctx carrying a new Watch; its watches end with stop.
func WithWatch(ctx context.Context) (context.Context, *Watch, context.CancelFunc) {
	wctx, stop := context.WithCancel(ctx)
	w := &Watch{ctx: wctx, changed: make(chan struct{}, 1), watching: map[watchKey]bool{}}
	return context.WithValue(ctx, watchCtxKey{}, w), w, stop
}

func watchFrom(ctx context.Context) *Watch {
	w, _ := ctx.Value(watchCtxKey{}).(*Watch)
	return w
}

// Look starts a look: what it reads decides how the wait sleeps after it.
func (w *Watch) Look() {
	w.mu.Lock()
	w.blind, w.followed = false, 0
	w.mu.Unlock()
}

// Changed fires when a watched object changed (or a watch ended: the next
// look reads again and watches anew).
func (w *Watch) Changed() <-chan struct{} { return w.changed }

// Sleep is how long the wait sleeps after the last look when nothing it
// watches changes: poll when that look could not be watched, else idle (a
// safety net for a change a watch did not report).
func (w *Watch) Sleep(poll, idle time.Duration) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.blind || w.followed == 0 {
		return poll
	}
	return idle
}

// Blind marks the look in ctx, if any, as one no watch follows.
func Blind(ctx context.Context) {
	if w := watchFrom(ctx); w != nil {
		w.mu.Lock()
		w.blind = true
		w.mu.Unlock()
	}
}

func (w *Watch) wake() {
	select {
	case w.changed <- struct{}{}:
	default:
	}
}

// follow watches what a read through r returned (at resourceVersion rv, ""
// when the object was not there), unless the wait watches it already.
func (w *Watch) follow(r dynamic.ResourceInterface, k watchKey, opts metav1.ListOptions, rv string) {
	w.mu.Lock()
	if w.watching[k] {
		w.followed++
		w.mu.Unlock()
		return
	}
	w.watching[k] = true
	w.mu.Unlock()
	opts.ResourceVersion = rv
	wi, err := r.Watch(w.ctx, opts)
	w.mu.Lock()
	if err != nil {
		delete(w.watching, k)
		w.blind = true
		w.mu.Unlock()
		return
	}
	w.followed++
	w.mu.Unlock()
	go func() {
		defer wi.Stop()
		for {
			select {
			case <-w.ctx.Done():
				return
			case _, ok := <-wi.ResultChan():
				if !ok { // the server ended the watch (its timeout, an expired version)
					w.mu.Lock()
					delete(w.watching, k)
					w.mu.Unlock()
					w.wake()
					return
				}
				w.wake()
			}
		}
	}()
}

// followGet watches one object after a Get.
func followGet(ctx context.Context, r dynamic.ResourceInterface, resource, namespace, name, rv string) {
	if w := watchFrom(ctx); w != nil {
		w.follow(r, watchKey{resource: resource, namespace: namespace, name: name},
			metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()}, rv)
	}
}

// followList watches what a List read.
func followList(ctx context.Context, r dynamic.ResourceInterface, resource, namespace string, opts metav1.ListOptions, rv string) {
	if w := watchFrom(ctx); w != nil {
		w.follow(r, watchKey{resource: resource, namespace: namespace, sels: opts.LabelSelector + "|" + opts.FieldSelector}, opts, rv)
	}
}
