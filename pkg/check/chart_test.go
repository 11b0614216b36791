package check

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check/checktest"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

var fake = checktest.Cluster

// seenLook is one check against a fake cluster, and what it must say.
type seenLook struct {
	name    string
	check   assert.Check
	ctx     context.Context
	ok      bool
	unknown bool
	seen    string // a part of what it must say it saw
}

func expectSeen(t *testing.T, looks []seenLook) {
	t.Helper()
	for _, l := range looks {
		checktest.Saw(t, l.name, l.check, l.ctx, l.ok, l.unknown, l.seen)
	}
}

func deployment(name string, available, replicas int64, failure string) *unstructured.Unstructured {
	status := map[string]any{"replicas": replicas}
	if available > 0 {
		status["availableReplicas"] = available
	}
	if failure != "" {
		status["conditions"] = []any{
			map[string]any{"type": "Available", "status": "False"},
			map[string]any{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": failure},
		}
	}
	return obj("apps/v1", "Deployment", "kruise-system", name, map[string]any{"spec": map[string]any{"replicas": replicas}, "status": status})
}

// The kruise 1.5.2 manager as run 20261124-092008's evidence shows it stuck.
const stuckMessage = `Internal error occurred: failed calling webhook "mpod.kb.io": failed to call webhook: Post "https://kruise-webhook-service.kruise-system.svc:443/mutate-pod?timeout=30s": no endpoints available for service "kruise-webhook-service"`

func TestWorkloadVerdicts(t *testing.T) {
	manager := Workload{Kind: "Deployment", Namespace: "kruise-system", Name: "kruise-controller-manager", Replicas: 1}
	daemon := Workload{Kind: "DaemonSet", Namespace: "kruise-system", Name: "kruise-daemon", Replicas: -1}
	hooks := []string{"mpod.kb.io", "vpod.kb.io"}
	stuck := fake(nil, deployment(manager.Name, 0, 1, stuckMessage))
	running := fake(nil, deployment(manager.Name, 1, 1, ""))
	other := fake(nil, deployment(manager.Name, 0, 1, `admission webhook "someone.else.io" denied the request`))
	ds := func(available, unavailable int64) context.Context {
		status := map[string]any{"numberAvailable": available}
		if unavailable > 0 {
			status["numberUnavailable"] = unavailable
		}
		return fake(nil, obj("apps/v1", "DaemonSet", "kruise-system", daemon.Name, map[string]any{"status": status}))
	}
	expectSeen(t, []seenLook{
		{"Available: 1/1", Available(manager), running, true, false, `"1/1"`},
		{"Available: stuck", Available(manager), stuck, false, false, `"/1"`},
		{"Available: not there", Available(manager), fake(nil), false, false, "not found"},
		{"Available: no answer", Available(manager), fake(refused), false, true, ""},
		{"Available: a DaemonSet with every Pod up", Available(daemon), ds(1, 0), true, false, ""},
		{"Available: a DaemonSet with one down", Available(daemon), ds(1, 1), false, false, ""},
		{"Blocked: the manager rejected by its own webhook", Blocked(manager, hooks), stuck, true, false, `deployment kruise-system/kruise-controller-manager not available ("/1"), its Pods rejected: "Internal error occurred: failed calling webhook \"mpod.kb.io\"`},
		{"Blocked: running", Blocked(manager, hooks), running, false, false, "deployment kruise-system/kruise-controller-manager available"},
		{"Blocked: rejected by a webhook not of the chart", Blocked(manager, hooks), other, false, false, `not available ("/1"), its Pods not rejected by a webhook`},
		{"Blocked: no webhook in the chart", Blocked(manager, nil), stuck, false, false, "not rejected"},
		{"Blocked: no answer is not a verdict", Blocked(manager, hooks), fake(refused), false, true, ""},
	})
	event := obj("v1", "Event", "kruise-system", "e", map[string]any{"reason": "FailedCreate",
		"message":        `Error creating: ` + stuckMessage,
		"involvedObject": map[string]any{"kind": "DaemonSet", "name": "kruise-daemon"}})
	daemonStuck := fake(nil, event, obj("apps/v1", "DaemonSet", "kruise-system", daemon.Name, map[string]any{"status": map[string]any{"numberUnavailable": int64(1)}}))
	expectSeen(t, []seenLook{{"Blocked: a DaemonSet's FailedCreate event names the webhook", Blocked(daemon, hooks), daemonStuck, true, false, "mpod.kb.io"}})

	// the bash form a reproduction checks the same with
	script := assert.ScriptOf(stuck, Blocked(manager, hooks)).Shell
	for _, want := range []string{`jsonpath_matches deployment.apps kruise-system kruise-controller-manager`, `'webhook "(mpod\.kb\.io|vpod\.kb\.io)"'`,
		`! jsonpath_is deployment.apps kruise-system kruise-controller-manager '{.status.availableReplicas}/{.spec.replicas}' 1/1`} {
		if !strings.Contains(script, want) {
			t.Errorf("bash form %q lacks %q", script, want)
		}
	}
}

func TestLeftBehind(t *testing.T) {
	hooks, err := Webhooks(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: config.webhook.serving.knative.dev}
webhooks:
- name: config.webhook.serving.knative.dev
  failurePolicy: Fail
  clientConfig: {service: {name: webhook, namespace: knative-serving}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: by-url}
webhooks:
- name: by-url.example.com
  clientConfig: {url: "https://example.com"}
`)
	if err != nil {
		t.Fatal(err)
	}
	config := obj("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", "config.webhook.serving.knative.dev", nil)
	service := obj("v1", "Service", "knative-serving", "webhook", nil)
	expectSeen(t, []seenLook{
		{"left, its service gone", LeftBehind(hooks), fake(nil, config), true, false,
			"validatingwebhookconfiguration config.webhook.serving.knative.dev there, calling service knative-serving/webhook gone"},
		{"left, its service there", LeftBehind(hooks), fake(nil, config, service), false, false, "calling service knative-serving/webhook there"},
		{"deleted with the chart", LeftBehind(hooks), fake(nil), false, false, "validatingwebhookconfiguration config.webhook.serving.knative.dev gone"},
		{"no answer", LeftBehind(hooks), fake(refused), false, true, ""},
		{"no configuration calls a service", LeftBehind(hooks[1:]), fake(nil), false, false, "no webhook configuration of the chart calls a service"},
	})
}

func TestKeptAndHooks(t *testing.T) {
	ns := func(phase string) *unstructured.Unstructured {
		return obj("v1", "Namespace", "", "team", map[string]any{"status": map[string]any{"phase": phase}})
	}
	cm, secret := obj("v1", "ConfigMap", "team", "gitops-conformance-sentinel", nil), obj("v1", "Secret", "team", "gitops-conformance-sentinel", nil)
	kept := Kept("team", "gitops-conformance-sentinel", "gitops-conformance-sentinel")
	expectSeen(t, []seenLook{
		{"kept", kept, fake(nil, ns("Active"), cm, secret), true, false, ""},
		{"the namespace terminating", kept, fake(nil, ns("Terminating"), cm, secret), false, false, "Terminating"},
		{"the namespace gone", kept, fake(nil), false, false, "not found"},
		{"its Secret gone", kept, fake(nil, ns("Active"), cm), false, false, "not found"},
		{"no answer", kept, fake(refused), false, true, ""},
	})

	job := obj("batch/v1", "Job", "kyverno", "kyverno-clean-reports", nil)
	job.SetFinalizers([]string{HookFinalizer})
	deleting := job.DeepCopy()
	now := metav1.Now()
	deleting.SetDeletionTimestamp(&now)
	hooks := []lifecycle.Object{{Kind: "job.batch", Namespace: "kyverno", Name: "kyverno-clean-reports"}}
	expectSeen(t, []seenLook{
		{"a hook deleted, held by ArgoCD's hook finalizer", HooksKept(hooks), fake(nil, deleting), true, false, "deleting since"},
		{"a hook running", HooksKept(hooks), fake(nil, job), false, false, "live"},
		{"a hook deleted and gone", HooksKept(hooks), fake(nil), false, false, "not found"},
		{"no hooks", HooksKept(nil), fake(nil), false, false, "no named hook"},
	})
}

func TestNodeImages(t *testing.T) {
	node := obj("v1", "Node", "", "conform-control-plane", map[string]any{"status": map[string]any{"images": []any{
		map[string]any{"names": []any{"docker.io/openkruise/kruise-manager:v1.5.2", "docker.io/openkruise/kruise-manager@sha256:abc"}},
		map[string]any{"names": []any{"registry.k8s.io/pause:3.10"}},
	}}})
	have, err := NodeImages(fake(nil, node))
	if err != nil || len(have) != 3 {
		t.Fatalf("node images: %v, %v", have, err)
	}
	if got := MissingImages([]string{"openkruise/kruise-manager:v1.5.2", "openkruise/kruise-daemon:v1.5.2"}, have); len(got) != 1 || got[0] != "openkruise/kruise-daemon:v1.5.2" {
		t.Errorf("missing: %v", got)
	}
}

func TestDiff(t *testing.T) {
	if _, differ := Diff(map[string]any{"metadata": map[string]any{"name": "x", "labels": map[string]any{"a": "b"}}}, map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "c"}}}); len(differ) != 1 {
		t.Errorf("a label of the chart with another value differs: %v", differ)
	}
	dropped, differ := Diff(map[string]any{"spec": map[string]any{"a": int64(1), "b": []any{"x", "y"}}, "status": map[string]any{"s": 1}},
		map[string]any{"spec": map[string]any{"a": float64(2), "b": []any{"x"}, "c": 3}})
	if strings.Join(dropped, " ") != ".spec.b[1]" || strings.Join(differ, " ") != ".spec.a" {
		t.Errorf("Diff: dropped %v, differ %v", dropped, differ)
	}
}

func TestRemains(t *testing.T) {
	config := obj("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", "", "config.webhook.serving.knative.dev", nil)
	controller := false
	config.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "Namespace", Name: "knative-serving", Controller: &controller}})
	refs := func() []lifecycle.Object {
		return []lifecycle.Object{{Kind: "validatingwebhookconfiguration", Name: "config.webhook.serving.knative.dev"}, {Kind: "service", Namespace: "knative-serving", Name: "webhook"}}
	}
	expectSeen(t, []seenLook{
		{"a configuration left, owned by its namespace", Remains(refs), fake(nil, config), false, false,
			"1 of 2 there: validatingwebhookconfiguration config.webhook.serving.knative.dev: owned by Namespace knative-serving (controller: false)"},
		{"none left", Remains(refs), fake(nil), true, false, "none of the 2 is there"},
		{"no answer", Remains(refs), fake(refused), false, true, ""},
	})

}

// A workload its own chart's webhook keeps rejecting ends the wait for it
// with that cause, quoted, once the rejection has lasted: not after the
// wait's whole timeout with only "/1" to show (a fake clock: no sleep).
func TestUnlessBlockedQuotesTheCause(t *testing.T) {
	manager := Workload{Kind: "Deployment", Namespace: "kruise-system", Name: "kruise-controller-manager", Replicas: 1}
	hooks := []string{"mpod.kb.io"}
	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	check := UnlessBlocked(Available(manager), Blocked(manager, hooks), "a webhook of the chart blocks the chart's own Pods", time.Minute, now)
	stuck := fake(nil, deployment(manager.Name, 0, 1, stuckMessage))
	if ok, seen, err := check(stuck); ok || err != nil || !strings.Contains(seen, `failed calling webhook \"mpod.kb.io\"`) {
		t.Fatalf("first look: ok %v, seen %q, err %v; want not yet, the cause quoted", ok, seen, err)
	}
	clock = clock.Add(59 * time.Second)
	if _, _, err := check(stuck); err != nil {
		t.Fatalf("59 s: %v, want the wait to go on", err)
	}
	clock = clock.Add(time.Second)
	if _, _, err := check(stuck); err == nil || assert.IsUnknown(err) || !strings.Contains(err.Error(), "a webhook of the chart blocks the chart's own Pods") || !strings.Contains(err.Error(), "mpod.kb.io") {
		t.Fatalf("a minute: want the wait ended naming the webhook, got %v", err)
	}
	// came up: the clock starts again
	running := fake(nil, deployment(manager.Name, 1, 1, ""))
	if ok, _, err := UnlessBlocked(Available(manager), Blocked(manager, hooks), "a webhook of the chart blocks the chart's own Pods", time.Minute, now)(running); !ok || err != nil {
		t.Errorf("running: ok %v, err %v", ok, err)
	}
	other := fake(nil, deployment(manager.Name, 0, 1, `admission webhook "someone.else.io" denied the request`))
	fresh := UnlessBlocked(Available(manager), Blocked(manager, hooks), "a webhook of the chart blocks the chart's own Pods", time.Minute, now)
	for range 3 {
		clock = clock.Add(time.Hour)
		if _, _, err := fresh(other); err != nil {
			t.Fatalf("a webhook not of the chart: %v, want the wait to go on (its own timeout says what it saw)", err)
		}
	}
}

func TestFullImage(t *testing.T) {
	for in, want := range map[string]string{
		"nginx":                         "docker.io/library/nginx:latest",
		"bitnami/kubectl:1.30":          "docker.io/bitnami/kubectl:1.30",
		"registry.k8s.io/pause:3.10":    "registry.k8s.io/pause:3.10",
		"localhost:5000/x":              "localhost:5000/x:latest",
		"quay.io/a/b@sha256:0123":       "quay.io/a/b@sha256:0123",
		"docker.io/library/redis:7.2.7": "docker.io/library/redis:7.2.7",
	} {
		if got := FullImage(in); got != want {
			t.Errorf("FullImage(%s) = %s, want %s", in, got, want)
		}
	}
	if got := MissingImages([]string{"nginx", "quay.io/x:1", "registry.k8s.io/pause:3.10"}, []string{"docker.io/library/nginx:latest", "registry.k8s.io/pause:3.10"}); len(got) != 1 || got[0] != "quay.io/x:1" {
		t.Errorf("MissingImages: %v", got)
	}
}

func TestProbe(t *testing.T) {
	hooks, err := Webhooks(`kind: ValidatingWebhookConfiguration
metadata: {name: config.webhook.serving.knative.dev}
webhooks:
- name: config.webhook.serving.knative.dev
  clientConfig: {service: {name: webhook, namespace: knative-serving}}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps/*]}]
  objectSelector:
    matchExpressions: [{key: app.kubernetes.io/name, operator: In, values: [knative-serving]}, {key: app.kubernetes.io/component, operator: Exists}]
- name: deployments.example.com
  rules: [{apiGroups: [apps], operations: [CREATE], resources: [deployments]}]
`)
	if err != nil {
		t.Fatal(err)
	}
	ns := obj("v1", "Namespace", "", "knative-serving", nil)
	ns.SetLabels(map[string]string{"kubernetes.io/metadata.name": "knative-serving"})
	ctx := fake(nil, ns)
	files, err := Probe(ctx, hooks[0])
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := fixture.Manifest(ctx, files)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := kube.Decode(manifest)
	if err != nil || len(objs) != 1 || objs[0].GetKind() != "ConfigMap" || objs[0].GetNamespace() != "knative-serving" ||
		objs[0].GetLabels()["app.kubernetes.io/name"] != "knative-serving" || objs[0].GetLabels()["app.kubernetes.io/component"] != "true" {
		t.Fatalf("probe: %v\n%s", err, manifest)
	}
	if _, err := Probe(ctx, hooks[1]); err == nil || !strings.Contains(err.Error(), "its rules take no CREATE of configmaps or pods") {
		t.Errorf("a webhook on deployments: %v", err)
	}
	if _, err := Probe(fake(nil), hooks[0]); err == nil || !strings.Contains(err.Error(), "takes none of [knative-serving default]") {
		t.Errorf("no namespace it takes: %v", err)
	}
	if _, err := Probe(fake(refused), hooks[0]); err == nil {
		t.Errorf("no answer: %v", err)
	}
}

// The chart's looks say what they look at, so a step can take its name
// from them (assert.Await, env.See).
func TestChartLooksDescribeThemselves(t *testing.T) {
	w := Workload{Kind: "Deployment", Namespace: "ns", Name: "d", Replicas: 1}
	sts := Workload{Kind: "StatefulSet", Namespace: "ns", Name: "s", Replicas: 1}
	hook := lifecycle.Object{Kind: "job.batch", APIKind: "Job", Namespace: "ns", Name: "h"}
	for _, tt := range []struct {
		check assert.Check
		want  string
	}{
		{Available(w), "deployment ns/d available"},
		{RejectedBy(sts, []string{"a.x", "b.x"}), "statefulset ns/s Pods rejected by webhook a.x or b.x"},
		{Blocked(w, []string{"a.x"}), "deployment ns/d not available, its Pods rejected by a webhook"},
		{UnlessBlocked(Available(w), Blocked(w, []string{"a.x"}), "blocked", time.Minute, time.Now), "deployment ns/d available"},
		{Kept("team", "c", "s"), "namespace team Active, holding configmap c and secret s"},
		{HooksKept([]lifecycle.Object{hook}), "a hook deleting, held by " + HookFinalizer},
		{HeldByHook("x", []lifecycle.Object{hook}), "application argocd/x operation Running, and a hook deleting, held by " + HookFinalizer},
		{HookResults("x"), "application argocd/x hooks in the last sync's result"},
		{Remains(func() []lifecycle.Object { return nil }), "none of the objects there"},
		{LeftBehind([]Webhook{{Name: "w", Config: "validatingwebhookconfiguration", ConfigName: "c", ClientConfig: WebhookClient{Service: &WebhookService{Namespace: "ns", Name: "svc"}}}}),
			"a webhook configuration of the chart left behind, calling a service that is gone"},
	} {
		if d, ok := assert.NameOf(tt.check); !ok || d.String() != tt.want {
			t.Errorf("described %v as %q, want %q", ok, d, tt.want)
		}
	}
}

// An upgrade's rollout: a Deployment whose old Pod keeps it available while
// its new ReplicaSet's Pods are rejected (the argocd-applicationset-
// controller, "0 out of 1 new replicas have been updated") is not up to
// date, and BlockedUpdate names the webhook, any webhook.
func TestUpToDateAndBlockedUpdate(t *testing.T) {
	ctrl := Workload{Kind: "Deployment", Namespace: "argocd", Name: "argocd-applicationset-controller", Replicas: 1}
	sts := Workload{Kind: "StatefulSet", Namespace: "argocd", Name: "argocd-application-controller", Replicas: 1}
	rollout := func(generation, observed, updated, available, replicas int64, failure string) context.Context {
		d := deployment(ctrl.Name, available, replicas, failure)
		d.SetNamespace("argocd")
		d.SetGeneration(generation)
		_ = unstructured.SetNestedField(d.Object, int64(1), "spec", "replicas")
		_ = unstructured.SetNestedField(d.Object, observed, "status", "observedGeneration")
		_ = unstructured.SetNestedField(d.Object, updated, "status", "updatedReplicas")
		return fake(nil, d)
	}
	denied := `Internal error occurred: failed calling webhook "deny-argocd.example.com": no endpoints available`
	stsEvent := obj("v1", "Event", "argocd", "e", map[string]any{"reason": "FailedCreate",
		"message":        `create Pod argocd-application-controller-0 in StatefulSet argocd-application-controller failed error: ` + denied,
		"involvedObject": map[string]any{"kind": "StatefulSet", "name": sts.Name}})
	down := obj("apps/v1", "StatefulSet", "argocd", sts.Name, map[string]any{"spec": map[string]any{"replicas": int64(1)},
		"status": map[string]any{"observedGeneration": int64(2), "replicas": int64(0)}})
	down.SetGeneration(2)
	stsDown := fake(nil, stsEvent, down)
	expectSeen(t, []seenLook{
		{"UpToDate: the old Pod still available, the new one rejected", UpToDate(ctrl), rollout(2, 2, 0, 1, 2, denied), false, false, "0 of 1 updated, 1 available, 2 in all"},
		{"UpToDate: the new generation not yet observed", UpToDate(ctrl), rollout(3, 2, 1, 1, 1, ""), false, false, "generation 3 not yet observed"},
		{"UpToDate: rolled out", UpToDate(ctrl), rollout(2, 2, 1, 1, 1, ""), true, false, "1 of 1 updated"},
		{"UpToDate: no answer", UpToDate(ctrl), fake(refused), false, true, ""},
		{"BlockedUpdate: available by its old Pod, its new ones rejected", BlockedUpdate(ctrl), rollout(2, 2, 0, 1, 2, denied), true, false, `failed calling webhook \"deny-argocd.example.com\"`},
		{"BlockedUpdate: rolled out", BlockedUpdate(ctrl), rollout(2, 2, 1, 1, 1, ""), false, false, "up to date"},
		{"BlockedUpdate: a StatefulSet's FailedCreate event", BlockedUpdate(sts), stsDown, true, false, "deny-argocd.example.com"},
	})
}
