package lifecycle

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// A timeline records every change the API server reports for a few named
// objects, from the moment it starts until the cell's evidence is dumped: one
// line per event with the time it arrived, what the deletion machinery looks
// at (deletionTimestamp, finalizers, ownerReferences, phase) and the
// annotations and labels that matter. A foreground deletion shows as the
// foregroundDeletion finalizer the API server adds, an orphaning one as
// orphan: how an object was deleted is read from the object itself. Secrets
// are recorded by their metadata only.
type timeline struct {
	name     string
	cancel   context.CancelFunc
	watchers []*watchtools.RetryWatcher
	wg       sync.WaitGroup
	mu       sync.Mutex
	lines    []string
	errs     []string
}

// StartTimeline starts a timeline of objs, written to timeline-<name>.txt in
// the cell's evidence. The objects need not exist yet.
func (r *Run) StartTimeline(ctx context.Context, c *Cell, name string, objs ...Object) error {
	dc, err := discovery.NewDiscoveryClientForConfig(r.REST)
	if err != nil {
		return fmt.Errorf("timeline %s: %w", name, err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	client, err := dynamic.NewForConfig(r.REST)
	if err != nil {
		return fmt.Errorf("timeline %s: %w", name, err)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t := &timeline{name: name, cancel: cancel}
	for _, o := range objs {
		gvr, err := resourceFor(mapper, o.Kind)
		if err != nil {
			t.stopWatchers()
			return fmt.Errorf("timeline %s: %s: %w", name, o.Kind, err)
		}
		res := client.Resource(gvr).Namespace(o.Namespace)
		if o.Namespace == "" {
			res = client.Resource(gvr)
		}
		sel := fields.OneTermEqualSelector("metadata.name", o.Name).String()
		list, err := res.List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			t.stopWatchers()
			return fmt.Errorf("timeline %s: list %s: %w", name, Ref(o.Kind, o.Namespace, o.Name), err)
		}
		if len(list.Items) == 0 {
			t.add(o, "ABSENT", nil)
		}
		for i := range list.Items {
			t.add(o, "PRESENT", &list.Items[i])
		}
		w, err := watchtools.NewRetryWatcherWithContext(wctx, list.GetResourceVersion(), &cache.ListWatch{
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				opts.FieldSelector = sel
				return res.Watch(ctx, opts)
			}})
		if err != nil {
			t.stopWatchers()
			return fmt.Errorf("timeline %s: watch %s: %w", name, Ref(o.Kind, o.Namespace, o.Name), err)
		}
		t.watchers = append(t.watchers, w)
		t.wg.Add(1)
		go func(o Object) {
			defer t.wg.Done()
			for ev := range w.ResultChan() { // closed when the watcher stops
				if u, isObj := ev.Object.(*unstructured.Unstructured); isObj {
					t.add(o, string(ev.Type), u)
				} else if ev.Type == watch.Error {
					t.mu.Lock()
					t.errs = append(t.errs, fmt.Sprintf("%s: %v", Ref(o.Kind, o.Namespace, o.Name), ev.Object))
					t.mu.Unlock()
				}
			}
		}(o)
	}
	c.timelines = append(c.timelines, t)
	return nil
}

func resourceFor(mapper *restmapper.DeferredDiscoveryRESTMapper, kind string) (schema.GroupVersionResource, error) {
	_, gr := schema.ParseResourceArg(strings.ToLower(kind))
	gvr, err := mapper.ResourceFor(gr.WithVersion(""))
	if err != nil {
		return schema.GroupVersionResource{}, err
	}
	return gvr, nil
}

func (t *timeline) add(o Object, event string, u *unstructured.Unstructured) {
	now := time.Now().UTC().Format("15:04:05.000")
	line := fmt.Sprintf("%s %-8s %s", now, event, Ref(o.Kind, o.Namespace, o.Name))
	if u != nil {
		line += " " + describe(u)
	}
	t.mu.Lock()
	t.lines = append(t.lines, line)
	t.mu.Unlock()
}

// describe is what a timeline line says of an object.
func describe(u *unstructured.Unstructured) string {
	var parts []string
	parts = append(parts, "rv="+u.GetResourceVersion())
	if ts := u.GetCreationTimestamp(); !ts.IsZero() {
		parts = append(parts, "created="+ts.UTC().Format(time.RFC3339))
	}
	if dt := u.GetDeletionTimestamp(); dt != nil {
		parts = append(parts, "deletionTimestamp="+dt.UTC().Format(time.RFC3339))
	}
	if phase, ok, _ := unstructured.NestedString(u.Object, "status", "phase"); ok {
		parts = append(parts, "phase="+phase)
	}
	parts = append(parts, fmt.Sprintf("finalizers=%v", u.GetFinalizers()))
	if f, ok, _ := unstructured.NestedStringSlice(u.Object, "spec", "finalizers"); ok {
		parts = append(parts, fmt.Sprintf("spec.finalizers=%v", f))
	}
	var owners []string
	for _, ref := range u.GetOwnerReferences() {
		s := ref.Kind + "/" + ref.Name
		if ref.Controller != nil {
			s += fmt.Sprintf(" controller=%v", *ref.Controller)
		}
		if ref.BlockOwnerDeletion != nil {
			s += fmt.Sprintf(" blockOwnerDeletion=%v", *ref.BlockOwnerDeletion)
		}
		owners = append(owners, s)
	}
	parts = append(parts, "ownerReferences=["+strings.Join(owners, ", ")+"]")
	for _, m := range []struct {
		name string
		kv   map[string]string
	}{{"annotations", u.GetAnnotations()}, {"labels", u.GetLabels()}} {
		var kv []string
		for k, v := range m.kv {
			// what the deletion depends on, not the bulky last-applied copies
			if strings.Contains(k, "kargo.akuity.io") || strings.Contains(k, "argocd.argoproj.io") || k == "app.kubernetes.io/instance" {
				kv = append(kv, k+"="+v)
			}
		}
		if len(kv) > 0 {
			sort.Strings(kv)
			parts = append(parts, m.name+"={"+strings.Join(kv, ",")+"}")
		}
	}
	return strings.Join(parts, " ")
}

func (t *timeline) stopWatchers() {
	for _, w := range t.watchers {
		w.Stop()
	}
	t.wg.Wait()
	t.cancel()
}

// stop ends the timeline and writes it into the cell's evidence (events in
// the order they arrived).
func (t *timeline) stop(c *Cell) {
	// the watchers first: a watch cancelled under a running watcher is logged as failed
	t.stopWatchers()
	t.mu.Lock()
	defer t.mu.Unlock()
	head := fmt.Sprintf("# timeline %s: every change the API server reported (UTC arrival time, event, object, its state)\n", t.name) +
		"# DELETED carries the object as last stored: the update that removed its last finalizer was not written,\n" +
		"# the API server deleted the object instead (k8s.io/apiserver registry Store.Update), so that finalizer still shows\n"
	for _, e := range t.errs {
		head += "# watch error: " + e + "\n"
	}
	c.WriteEvidence("timeline-"+t.name+".txt", head+strings.Join(t.lines, "\n")+"\n")
}

// TimelineLines are the lines a running timeline of the cell recorded so far.
func (c *Cell) TimelineLines(name string) ([]string, bool) {
	for _, t := range c.timelines {
		if t.name == name {
			t.mu.Lock()
			defer t.mu.Unlock()
			return append([]string(nil), t.lines...), true
		}
	}
	return nil, false
}
