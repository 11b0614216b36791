package check

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube/kubetest"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check/checktest"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// cluster is a fake API server holding objs; a non-nil fail is what it
// answers to every call instead (an error of the API server, or none at all).
func cluster(t *testing.T, fail error, objs ...*unstructured.Unstructured) context.Context {
	t.Helper()
	return checktest.Cluster(fail, objs...)
}

var obj = kubetest.Object

var (
	refused    = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api/v1/namespaces/a", Err: syscall.ECONNREFUSED}
	unanswered = apierrors.NewServiceUnavailable("etcdserver: request timed out")
	timeout    = apierrors.NewTimeoutError("the server was unable to return a response in the time allotted", 0)
	denied     = apierrors.NewBadRequest(`admission webhook "config.webhook.serving.knative.dev" denied the request`)
	// a webhook that fails under failurePolicy Fail: the API server's answer
	webhookDown = apierrors.NewInternalError(errors.New(`failed calling webhook "mpod.kb.io": no endpoints available`))
)

// look is one check against a fake cluster, and what it must say.
type look struct {
	name    string
	check   assert.Check
	ctx     context.Context
	ok      bool
	unknown bool
}

func expect(t *testing.T, looks []look) {
	t.Helper()
	for _, tc := range looks {
		ok, seen, err := tc.check(tc.ctx)
		if ok != tc.ok || assert.IsUnknown(err) != tc.unknown || (err != nil && !tc.unknown) {
			t.Errorf("%s: ok %v, seen %q, err %v; want ok %v, could not tell %v", tc.name, ok, seen, err, tc.ok, tc.unknown)
		}
	}
}

func TestObjectChecksAreThreeState(t *testing.T) {
	ns := obj("v1", "Namespace", "", "a", map[string]any{"status": map[string]any{"phase": "Active"}})
	ns.SetFinalizers([]string{"kargo.akuity.io/finalizer"})
	pod := obj("v1", "Pod", "n", "p", map[string]any{"status": map[string]any{"phase": "Running"}})
	pod.SetLabels(map[string]string{"a": "b"})
	job := obj("batch/v1", "Job", "n", "j", nil)
	job.SetFinalizers([]string{"f"})
	deleting := job.DeepCopy()
	now := metav1.Now()
	deleting.SetDeletionTimestamp(&now)
	empty := cluster(t, nil)
	full := cluster(t, nil, ns, pod, job)
	expect(t, []look{
		{"Exists: there", Exists(lifecycle.Object{Kind: "namespace", Name: "a"}), full, true, false},
		{"Exists: NotFound", Exists(lifecycle.Object{Kind: "namespace", Name: "a"}), empty, false, false},
		{"Exists: an unserved type is not there", Exists(lifecycle.Object{Kind: "projects.kargo.akuity.io", Name: "a"}), empty, false, false},
		{"Exists: no answer", Exists(lifecycle.Object{Kind: "namespace", Name: "a"}), cluster(t, refused), false, true},
		{"Missing: NotFound", Missing(lifecycle.Object{Kind: "namespace", Name: "a"}), empty, true, false},
		{"Missing: there", Missing(lifecycle.Object{Kind: "namespace", Name: "a"}), full, false, false},
		{"Missing: no answer is not missing", Missing(lifecycle.Object{Kind: "namespace", Name: "a"}), cluster(t, refused), false, true},
		{"Missing: a timeout is not missing", Missing(lifecycle.Object{Kind: "job", Namespace: "n", Name: "j"}), cluster(t, timeout), false, true},
		{"JSONPathIs: equal", JSONPathIs(lifecycle.Object{Kind: "pod", Namespace: "n", Name: "p"}, "{.status.phase}", "Running"), full, true, false},
		{"JSONPathIs: differs", JSONPathIs(lifecycle.Object{Kind: "pod", Namespace: "n", Name: "p"}, "{.status.phase}", "Pending"), full, false, false},
		{"JSONPathIs: missing key prints nothing", JSONPathIs(lifecycle.Object{Kind: "pod", Namespace: "n", Name: "p"}, "{.status.podIP}", ""), full, true, false},
		{"JSONPathIs: no answer", JSONPathIs(lifecycle.Object{Kind: "pod", Namespace: "n", Name: "p"}, "{.status.phase}", "Running"), cluster(t, unanswered), false, true},
		{"JSONPathMatches: a list prints as JSON", JSONPathMatches(lifecycle.Object{Kind: "namespace", Name: "a"}, "{.metadata.finalizers}", `^\["kargo.akuity.io/finalizer"\]$`), full, true, false},
		{"JSONPathMatches: not found", JSONPathMatches(lifecycle.Object{Kind: "pod", Namespace: "n", Name: "q"}, "{.status.phase}", "."), full, false, false},
		{"JSONPathMatches: no answer", JSONPathMatches(lifecycle.Object{Kind: "pod", Namespace: "n", Name: "p"}, "{.status.phase}", "."), cluster(t, refused), false, true},
		{"FinalizerPending: live", FinalizerPending(lifecycle.Object{Kind: "job", Namespace: "n", Name: "j"}, "f"), full, false, false},
		{"FinalizerPending: held", FinalizerPending(lifecycle.Object{Kind: "job", Namespace: "n", Name: "j"}, "f"), cluster(t, nil, deleting), true, false},
		{"FinalizerPending: gone", FinalizerPending(lifecycle.Object{Kind: "job", Namespace: "n", Name: "j"}, "f"), empty, false, false},
		{"FinalizerPending: no answer", FinalizerPending(lifecycle.Object{Kind: "job", Namespace: "n", Name: "j"}, "f"), cluster(t, refused), false, true},
		{"NoneLeft: none", NoneLeft(lifecycle.Selection{Kinds: "pods", Namespace: "n", Labels: "a=c"}), full, true, false},
		{"NoneLeft: one left", NoneLeft(lifecycle.Selection{Kinds: "pods", Namespace: "n", Labels: "a=b"}), full, false, false},
		{"NoneLeft: no answer", NoneLeft(lifecycle.Selection{Kinds: "pods", Namespace: "n", Labels: "a=b"}), cluster(t, refused), false, true},
		{"RolledOut: no answer", RolledOut("n"), cluster(t, refused), false, true},
	})
}

func TestWorkloadChecks(t *testing.T) {
	available := func(name string, have, want int64) *unstructured.Unstructured {
		return obj("apps/v1", "Deployment", "n", name, map[string]any{
			"spec": map[string]any{"replicas": want}, "status": map[string]any{"availableReplicas": have}})
	}
	slice := obj("discovery.k8s.io/v1", "EndpointSlice", "n", "s-1", map[string]any{"endpoints": []any{
		map[string]any{"addresses": []any{"10.0.0.1"}, "conditions": map[string]any{"ready": true, "serving": true}},
		map[string]any{"addresses": []any{"10.0.0.2"}, "conditions": map[string]any{"ready": false, "serving": true, "terminating": true}},
	}})
	slice.SetLabels(map[string]string{"kubernetes.io/service-name": "s"})
	event := obj("v1", "Event", "n", "e", map[string]any{"reason": "FailedCreate", "message": `admission webhook "mpod.kb.io" denied`,
		"involvedObject": map[string]any{"kind": "ReplicaSet", "name": "kruise-manager-1"}})
	expect(t, []look{
		{"RolledOut: all available", RolledOut("n"), cluster(t, nil, available("a", 1, 1), available("b", 2, 2)), true, false},
		{"RolledOut: one short", RolledOut("n"), cluster(t, nil, available("a", 1, 1), available("b", 1, 2)), false, false},
		{"RolledOut: none yet", RolledOut("n"), cluster(t, nil), false, false},
		{"ReadyEndpoints: one", ReadyEndpoints(lifecycle.Object{Kind: "service", Namespace: "n", Name: "s"}, 1), cluster(t, nil, slice), true, false},
		{"ServingEndpoints: two", ServingEndpoints(lifecycle.Object{Kind: "service", Namespace: "n", Name: "s"}, 2), cluster(t, nil, slice), true, false},
		{"ServingEndpoints: no answer", ServingEndpoints(lifecycle.Object{Kind: "service", Namespace: "n", Name: "s"}, 0), cluster(t, unanswered), false, true},
		{"EventSeen: no answer", EventSeen(lifecycle.Object{Kind: "ReplicaSet", Namespace: "n"}, "FailedCreate", "denied"), cluster(t, refused), false, true},
	})
	// the fake client ignores field selectors; the filter is the API server's
	if ok, seen, err := EventSeen(lifecycle.Object{Kind: "ReplicaSet", Namespace: "n"}, "FailedCreate", "mpod.kb.io")(cluster(t, nil, event)); !ok || err != nil {
		t.Errorf("EventSeen: %v %q %v", ok, seen, err)
	}
	if ok, seen, err := EventMatches(lifecycle.Object{Kind: "ReplicaSet", Namespace: "n"}, "FailedCreate", `^kruise-manager-1: .*"mpod\.kb\.io"`)(cluster(t, nil, event)); !ok || err != nil {
		t.Errorf("EventMatches: %v %q %v", ok, seen, err)
	}
	if ok, seen, err := EventMatches(lifecycle.Object{Kind: "ReplicaSet", Namespace: "n"}, "FailedCreate", `^other: `)(cluster(t, nil, event)); ok || err != nil || !strings.Contains(seen, `none matching "^other: "`) {
		t.Errorf("EventMatches of another object: %v %q %v", ok, seen, err)
	}
}

func TestDryRunsTellARejectionFromNoAnswer(t *testing.T) {
	cm := fixture.Chart("probes", map[string]any{"configMap": map[string]any{"name": "c", "namespace": "n", "data": map[string]string{"k": "v"}}})
	expect(t, []look{
		{"Accepted: admitted", Accepted(cm), cluster(t, nil), true, false},
		{"Accepted: denied", Accepted(cm), cluster(t, denied), false, false},
		{"Accepted: a webhook down under failurePolicy Fail is a rejection", Accepted(cm), cluster(t, webhookDown), false, false},
		{"Accepted: no answer is not a rejection", Accepted(cm), cluster(t, refused), false, true},
		{"Rejected: denied", Rejected(cm, "denied the request"), cluster(t, denied), true, false},
		{"Rejected: webhook down", Rejected(cm, "failed calling webhook"), cluster(t, webhookDown), true, false},
		{"Rejected: no answer is not a rejection", Rejected(cm, "denied"), cluster(t, unanswered), false, true},
		{"Rejected: admitted", Rejected(cm, "denied"), cluster(t, nil), false, false},
	})
}

// Every look names what it holds for, from the ref it was given: the step
// that waits for it is named by it (assert.Await, env.See).
func TestLooksNameThemselves(t *testing.T) {
	job := lifecycle.Object{Kind: "job", APIKind: "Job", Namespace: "ns", Name: "j"}
	for _, c := range []struct {
		check assert.Check
		want  string
	}{
		{HealthIs("x", "Healthy"), "application argocd/x health Healthy"},
		{assert.All(OperationPhaseIs("x", "Succeeded"), HealthIs("x", "Healthy")), "application argocd/x operation Succeeded and health Healthy"},
		{EventSeen(job, "Completed"), "job ns/j event Completed"},
		{EventSeen(lifecycle.Object{Kind: "replicaset", APIKind: "ReplicaSet", Namespace: "ns"}, "FailedCreate", "hook"), `replicasets in ns event FailedCreate containing "hook"`},
		{Missing(job), "job ns/j gone"},
		{JSONPathIs(job, "{.status.succeeded}", "1"), `job ns/j {.status.succeeded} = "1"`},
		{NoneLeft(lifecycle.Selection{Kinds: "pods", Namespace: "ns", Labels: "app=a"}), "pods -n ns -l app=a none left"},
	} {
		if d, ok := assert.NameOf(c.check); !ok || d.String() != c.want {
			t.Errorf("NameOf = %q, %v; want %q", d, ok, c.want)
		}
	}
}
