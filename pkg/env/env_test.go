package env

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/kube/kubetest"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// cell is a cell on a fake API server (client) whose kubectl is a stand-in:
// it records its arguments in args.txt and answers with out and exit code code.
func cell(t *testing.T, client *kube.Client, out string, code string) (context.Context, *assert.Record, string) {
	t.Helper()
	dir := t.TempDir()
	bin, args := filepath.Join(dir, "kubectl"), filepath.Join(dir, "args.txt")
	script := "#!/bin/sh\necho \"$@\" >> " + args + "\ncat >> " + filepath.Join(dir, "stdin.txt") + "\nprintf '%s' '" + out + "'\nexit " + code + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := lifecycle.WithRun(context.Background(), &lifecycle.Run{Kubectl: kube.Kubectl{Bin: bin, Kubeconfig: "kc"}, Kube: client})
	ctx, rec := assert.WithRecord(ctx, false)
	ctx, _ = lifecycle.WithCell(ctx, dir)
	return ctx, rec, args
}

func TestRemoveFinalizerPatchesOnlyWhatItRead(t *testing.T) {
	job := kubetest.Object("batch/v1", "Job", "kyverno", "kyverno-clean-reports", nil)
	job.SetFinalizers([]string{"other", "argocd.argoproj.io/hook-finalizer"})
	ctx, rec, args := cell(t, kubetest.Client(nil, job), "", "0")
	if err := removeFinalizer(ctx, "job", "kyverno", "kyverno-clean-reports", "argocd.argoproj.io/hook-finalizer"); err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(args)
	// test-then-remove at the index read: never another finalizer if the list moved
	if !strings.Contains(string(calls), `[{"op":"test","path":"/metadata/finalizers/1","value":"argocd.argoproj.io/hook-finalizer"},{"op":"remove","path":"/metadata/finalizers/1"}]`) {
		t.Errorf("kubectl calls:\n%s", calls)
	}
	if len(rec.Observations) != 1 || !strings.Contains(rec.Observations[0], "removed argocd.argoproj.io/hook-finalizer by hand") {
		t.Errorf("observations: %v", rec.Observations)
	}
}

func TestRemoveFinalizerTellsGoneFromNoAnswer(t *testing.T) {
	ctx, rec, _ := cell(t, kubetest.Client(nil), "", "0")
	if err := removeFinalizer(ctx, "job", "kyverno", "kyverno-clean-reports", "f"); err != nil || !strings.Contains(strings.Join(rec.Observations, ""), "not found, nothing to remove") {
		t.Fatalf("a job that is gone: err %v, observations %v", err, rec.Observations)
	}
	ctx, rec, _ = cell(t, kubetest.Client(&url.Error{Op: "Get", URL: "https://127.0.0.1:6443", Err: errors.New("net/http: TLS handshake timeout")}), "", "0")
	if err := removeFinalizer(ctx, "job", "kyverno", "kyverno-clean-reports", "f"); err == nil || len(rec.Observations) != 0 {
		t.Fatalf("no answer must fail the step, not be taken for a job that is gone: err %v, observations %v", err, rec.Observations)
	}
}

func TestRemoveRenderedSkipsKindsTheClusterDoesNotServe(t *testing.T) {
	ctx, _, args := cell(t, kubetest.Client(nil), "", "0")
	rendered := func(context.Context) (map[string]string, error) {
		return map[string]string{"rendered.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: n}\n---\n" +
			"apiVersion: caching.internal.knative.dev/v1alpha1\nkind: Image\nmetadata: {name: queue-proxy, namespace: n}\n"}, nil
	}
	if err := removeRendered(ctx, "chart", rendered); err != nil {
		t.Fatal(err)
	}
	stdin, _ := os.ReadFile(filepath.Join(filepath.Dir(args), "stdin.txt"))
	if !strings.Contains(string(stdin), "kind: ConfigMap") || strings.Contains(string(stdin), "kind: Image") {
		t.Errorf("kubectl delete got:\n%s", stdin)
	}
}

// An object whose kind went with its CRD is gone: the cleanup of what a cell
// applied passes over it, and over nothing else.
func TestCleanupPassesOverKindsNoLongerServed(t *testing.T) {
	unserved := `namespace "w" deleted
error: resource mapping not found for name: "guarded" namespace: "w" from "STDIN": no matches for kind "CloneSet" in version "apps.kruise.io/v1alpha1"
ensure CRDs are installed first`
	for out, want := range map[string]bool{
		unserved: true,
		unserved + "\nerror: timed out waiting for the condition on namespaces/w": false,
		`Error from server (Forbidden): configmaps "x" is forbidden`:              false,
		"": false,
	} {
		if got := onlyUnservedKinds(out); got != want {
			t.Errorf("onlyUnservedKinds(%q) = %v, want %v", out, got, want)
		}
	}
}

// The deletion hooks are released inside the cell's deletion of the
// Application, after it started: a scenario that asks for it on an
// Application the cell does not delete is told so, not left with a
// deletion that never ends.
func TestReleaseDeletionHooksRidesOnTheCellsDeletion(t *testing.T) {
	ctx, _, _ := cell(t, kubetest.Client(nil), "", "0")
	c := lifecycle.CellFrom(ctx)
	if err := releaseDeletionHooksAtEnd(ctx, "a"); err == nil || c.DeletionHooksReleased("a") {
		t.Fatalf("no deletion of application a registered: err %v, released %v", err, c.DeletionHooksReleased("a"))
	}
	deleteAtEnd(ctx, "a", Foreground, time.Second)
	if err := releaseDeletionHooksAtEnd(ctx, "a"); err != nil || !c.DeletionHooksReleased("a") || c.DeletionHooksReleased("b") {
		t.Fatalf("after CreateApp's deletion: err %v, released a %v, b %v", err, c.DeletionHooksReleased("a"), c.DeletionHooksReleased("b"))
	}
}

// A constructed ref knows its kind twice: as kubectl takes it (the verbs,
// the checks, repro.sh) and as the API names it (an event's involvedObject).
func TestRefsKnowTheirKinds(t *testing.T) {
	for _, c := range []struct {
		ref                      Object
		kubectl, api, logsAndRef string
	}{
		{Job("ns", "j"), "job", "Job", "job ns/j"},
		{Deployment("ns", "d"), "deployment", "Deployment", "deployment ns/d"},
		{Namespace("ns"), "namespace", "Namespace", "namespace ns"},
		{CRD("widgets.example.io"), "customresourcedefinition", "CustomResourceDefinition", "customresourcedefinition widgets.example.io"},
		{Application("a"), "applications.argoproj.io", "Application", "applications.argoproj.io argocd/a"},
		{Custom("clonesets.apps.kruise.io", "CloneSet", "ns", "c"), "clonesets.apps.kruise.io", "CloneSet", "clonesets.apps.kruise.io ns/c"},
	} {
		if c.ref.Kind != c.kubectl || c.ref.KindOf() != c.api || c.ref.String() != c.logsAndRef {
			t.Errorf("%+v: kind %q, API kind %q, %q; want %q, %q, %q", c.ref, c.ref.Kind, c.ref.KindOf(), c.ref.String(), c.kubectl, c.api, c.logsAndRef)
		}
	}
	if hand := (Object{Kind: "Job", Namespace: "ns"}); hand.KindOf() != "Job" {
		t.Errorf("a ref spelled by hand: API kind %q, want its Kind", hand.KindOf())
	}
}

// InRun carries an action out in a run, and not inside a branch the cell
// did not take (only written down there).
func TestInRunSkipsWhilePlanning(t *testing.T) {
	ran := 0
	action := InRun(func(context.Context) error { ran++; return nil })
	ctx, _ := repro.WithLog(context.Background())
	if err := action(ctx); err != nil || ran != 1 {
		t.Fatalf("in a run: ran %d, %v", ran, err)
	}
	branch, done := repro.InBranch(ctx, "not taken", nil, true, false)
	defer done()
	if err := action(branch); err != nil || ran != 1 {
		t.Errorf("in a branch not taken: ran %d, %v", ran, err)
	}
}

func TestExclusionKeepsTheRulesThere(t *testing.T) {
	install := "### Internal Kubernetes resources excluded reduce the number of watched events\n- apiGroups:\n  - ''\n  kinds:\n  - Endpoints\n  - EndpointSlice"
	got := withExclusion(install, "conversion.conformance.gitops.io", "Gadget")
	var rules []struct {
		APIGroups []string `json:"apiGroups"`
		Kinds     []string `json:"kinds"`
		Clusters  []string `json:"clusters"`
	}
	if err := yaml.Unmarshal([]byte(got), &rules); err != nil {
		t.Fatalf("%v:\n%s", err, got)
	}
	if len(rules) != 2 || rules[0].Kinds[0] != "Endpoints" || rules[1].APIGroups[0] != "conversion.conformance.gitops.io" ||
		rules[1].Kinds[0] != "Gadget" || rules[1].Clusters[0] != "*" {
		t.Errorf("rules %+v from:\n%s", rules, got)
	}
	if one := withExclusion("", "g", "K"); !strings.HasPrefix(one, "- apiGroups:") {
		t.Errorf("from no rules: %q", one)
	}
}
