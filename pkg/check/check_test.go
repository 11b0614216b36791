package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/kube"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// kubectl is a stand-in kubectl that prints out and exits with code: what
// the real one does for a found object, a missing one, a rejection, or an
// API server that does not answer.
func kubectl(t *testing.T, out string, code int) context.Context {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kubectl")
	script := "#!/bin/sh\ncat >/dev/null 2>&1 <&0 &\nprintf '%s' '" + out + "'\nexit " + string(rune('0'+code)) + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return lifecycle.WithRun(context.Background(), &lifecycle.Run{Kubectl: kube.Kubectl{Bin: bin, Kubeconfig: "unused"}})
}

const (
	notFound   = `Error from server (NotFound): namespaces "kargo-team-a" not found`
	refused    = `The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?`
	denied     = `Error from server (BadRequest): admission webhook "config.webhook.serving.knative.dev" denied the request`
	unanswered = `Error from server (ServiceUnavailable): etcdserver: request timed out`
)

// look is one check against what kubectl answers, and what it must say.
type look struct {
	name    string
	check   assert.Check
	out     string
	code    int
	ok      bool
	unknown bool
}

func expect(t *testing.T, looks []look) {
	t.Helper()
	for _, tc := range looks {
		ok, seen, err := tc.check(kubectl(t, tc.out, tc.code))
		if ok != tc.ok || assert.IsUnknown(err) != tc.unknown || (err != nil && !tc.unknown) {
			t.Errorf("%s: ok %v, seen %q, err %v; want ok %v, could not tell %v", tc.name, ok, seen, err, tc.ok, tc.unknown)
		}
	}
}

func TestObjectChecksAreThreeState(t *testing.T) {
	expect(t, []look{
		{"Exists: there", Exists("namespace", "", "a"), "", 0, true, false},
		{"Exists: NotFound", Exists("namespace", "", "a"), notFound, 1, false, false},
		{"Exists: no answer", Exists("namespace", "", "a"), refused, 1, false, true},
		{"Missing: NotFound", Missing("namespace", "", "a"), notFound, 1, true, false},
		{"Missing: no answer is not missing", Missing("namespace", "", "a"), refused, 1, false, true},
		{"JSONPathIs: equal", JSONPathIs("pod", "n", "p", "{.status.phase}", "Running"), "Running", 0, true, false},
		{"JSONPathIs: no answer", JSONPathIs("pod", "n", "p", "{.status.phase}", "Running"), unanswered, 1, false, true},
		{"JSONPathMatches: no answer", JSONPathMatches("pod", "n", "p", "{.status.phase}", "."), refused, 1, false, true},
		{"FinalizerPending: gone", FinalizerPending("job", "n", "j", "f"), notFound, 1, false, false},
		{"FinalizerPending: no answer", FinalizerPending("job", "n", "j", "f"), refused, 1, false, true},
		{"NoneLeft: none", NoneLeft("pods", "n", "a=b"), "No resources found in n namespace.", 0, true, false},
		{"NoneLeft: no answer", NoneLeft("pods", "n", "a=b"), refused, 1, false, true},
		{"RolledOut: no answer", RolledOut("n"), refused, 1, false, true},
	})
}

func TestDryRunsTellARejectionFromNoAnswer(t *testing.T) {
	cm := fixture.Chart("probes", map[string]any{"configMap": map[string]any{"name": "c", "namespace": "n", "data": map[string]string{"k": "v"}}})
	expect(t, []look{
		{"Accepted: admitted", Accepted(cm), "configmap/c created (server dry run)", 0, true, false},
		{"Accepted: denied", Accepted(cm), denied, 1, false, false},
		{"Accepted: no answer is not a rejection", Accepted(cm), refused, 1, false, true},
		{"Rejected: denied", Rejected(cm, "denied the request"), denied, 1, true, false},
		{"Rejected: no answer is not a rejection", Rejected(cm, "denied"), unanswered, 1, false, true},
		{"Rejected: admitted", Rejected(cm, "denied"), "configmap/c created (server dry run)", 0, false, false},
	})
}
