package check

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// RolledOut holds when every Deployment in namespace is Available.
func RolledOut(namespace string) assert.Check {
	return assert.Named("every Deployment in "+namespace+" Available", assert.Scripted(func(ctx context.Context) (bool, string, error) {
		list, err := lifecycle.From(ctx).Kube.List(ctx, "deployments.apps", namespace, "")
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		ready := len(list.Items) > 0
		var seen []string
		for _, d := range list.Items {
			have, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
			want, found, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
			if !found {
				want = 1 // the API server's default
			}
			if have != want {
				ready = false
			}
			seen = append(seen, fmt.Sprintf("%s=%d/%d%s", d.GetName(), have, want, replicaFailure(d)))
		}
		return ready, "deployments " + strings.Join(seen, " "), nil
	}, static(repro.RolledOut(namespace))))
}

// replicaFailure is a Deployment's ReplicaFailure condition, quoted, when
// it has one: the cause the cluster gave for Pods that were not created (a
// webhook that rejects them, a quota), which a wait that fails says.
func replicaFailure(d unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(d.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "ReplicaFailure" && m["status"] == "True" {
			return fmt.Sprintf(" (ReplicaFailure: %s)", text.Clip(fmt.Sprint(m["message"]), 300))
		}
	}
	return ""
}

// EventSeen holds when an event about the object has the reason (and, given
// a substring, an "object: message" line containing it: at most one). A ref
// without a name (env.Job(ns, "")) takes an event about any object of its
// kind in its namespace. The kind is the API's (about.KindOf: Job, ReplicaSet).
func EventSeen(about lifecycle.Object, reason string, containing ...string) assert.Check {
	if len(containing) > 1 {
		panic("check.EventSeen: one substring at most")
	}
	substr := strings.Join(containing, "")
	is := "event " + reason
	if substr != "" {
		is += " containing " + strconv.Quote(substr)
	}
	script := substr // repro.sh's event_seen reads no name: an event about the object names it
	if script == "" {
		script = about.Name
	}
	return describe(about, is, assert.Scripted(events(about, reason, "containing "+strconv.Quote(substr), func(l string) bool { return strings.Contains(l, substr) }),
		static(repro.EventSeen(about.Namespace, eventKind(about), reason, script))))
}

// EventMatches is EventSeen with its "object: message" line matching the
// regular expression re.
func EventMatches(about lifecycle.Object, reason, re string) assert.Check {
	return describe(about, "event "+reason+" matching "+strconv.Quote(re), assert.Scripted(events(about, reason, "matching "+strconv.Quote(re), regexp.MustCompile(re).MatchString),
		static(repro.EventMatches(about.Namespace, eventKind(about), reason, re))))
}

// eventKind is the kind an event's involvedObject names: the API's.
func eventKind(about lifecycle.Object) string { return about.KindOf() }

// events holds when one event's "object: message" line is ok.
func events(about lifecycle.Object, reason, what string, ok func(string) bool) assert.Check {
	namespace, kind := about.Namespace, eventKind(about)
	fields := "involvedObject.kind=" + kind + ",reason=" + reason
	if about.Name != "" {
		fields += ",involvedObject.name=" + about.Name
	}
	return func(ctx context.Context) (bool, string, error) {
		list, err := lifecycle.From(ctx).Kube.ListFields(ctx, "events", namespace, fields)
		if err != nil {
			return false, "", assert.Unknown(fmt.Errorf("list events in %q: %w", namespace, err))
		}
		for _, e := range list.Items {
			object, _, _ := unstructured.NestedString(e.Object, "involvedObject", "name")
			message, _, _ := unstructured.NestedString(e.Object, "message")
			if l := object + ": " + message; ok(l) {
				return true, fmt.Sprintf("%s event %s: %s", kind, reason, text.Clip(l, 400)), nil
			}
		}
		return false, fmt.Sprintf("%d %s %s event(s) in %s, none %s", len(list.Items), kind, reason, namespace, what), nil
	}
}

// ReadyEndpoints holds when the Service has n ready endpoints (EndpointSlices).
func ReadyEndpoints(svc lifecycle.Object, n int) assert.Check {
	return describe(svc, fmt.Sprintf("%d ready endpoint(s)", n), endpoints(svc.Namespace, svc.Name, "ready", n))
}

// ServingEndpoints holds when the Service has n serving endpoints
// (EndpointSlices): ready ones and terminating ones still serving, which
// kube-proxy sends traffic to when no ready one is left. Zero means nothing
// answers behind the Service any more.
func ServingEndpoints(svc lifecycle.Object, n int) assert.Check {
	return describe(svc, fmt.Sprintf("%d serving endpoint(s)", n), endpoints(svc.Namespace, svc.Name, "serving", n))
}

// endpoints counts the Service's endpoints whose condition cond is true.
func endpoints(namespace, service, cond string, n int) assert.Check {
	return assert.Scripted(func(ctx context.Context) (bool, string, error) {
		list, err := lifecycle.From(ctx).Kube.List(ctx, "endpointslices.discovery.k8s.io", namespace, "kubernetes.io/service-name="+service)
		if err != nil {
			return false, "", assert.Unknown(fmt.Errorf("list endpointslices of %s/%s: %w", namespace, service, err))
		}
		count := 0
		for _, slice := range list.Items {
			eps, _, _ := unstructured.NestedSlice(slice.Object, "endpoints")
			for _, ep := range eps {
				if on, _, _ := unstructured.NestedBool(asMap(ep), "conditions", cond); on {
					count++
				}
			}
		}
		return count == n, fmt.Sprintf("service %s/%s: %d %s endpoint(s)", namespace, service, count, cond), nil
	}, static(repro.Endpoints(namespace, service, cond, n)))
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// FinalizerPending holds when the object is being deleted (it has a
// deletionTimestamp) and still carries finalizer: a deletion held up by it.
func FinalizerPending(obj lifecycle.Object, finalizer string) assert.Check {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return describe(obj, "deleting, held by "+finalizer, assert.Scripted(func(ctx context.Context) (bool, string, error) {
		m, err := lifecycle.GetMeta(ctx, kind, namespace, name)
		if lifecycle.NotFound(err) {
			return false, lifecycle.Ref(kind, namespace, name) + " not found", nil
		}
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		ok := m.DeletionTimestamp != "" && slices.Contains(m.Finalizers, finalizer)
		return ok, lifecycle.Ref(kind, namespace, name) + " " + m.Describe(), nil
	}, static(repro.FinalizerPending(kind, namespace, name, finalizer))))
}
