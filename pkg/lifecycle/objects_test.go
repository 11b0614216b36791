package lifecycle

import (
	"errors"
	"testing"
)

// What kubectl prints decides between "not there", "rejected" and "could not
// tell": a read the API server did not answer is never taken for either.
func TestKubectlErrorsAreThreeState(t *testing.T) {
	for _, tc := range []struct {
		out                string
		notFound, answered bool
	}{
		{`Error from server (NotFound): namespaces "kargo-team-a" not found`, true, true},
		{`error: the server doesn't have a resource type "projects"`, true, false},
		{`Error from server (BadRequest): admission webhook "config.webhook.serving.knative.dev" denied the request`, false, true},
		{`Error from server (InternalError): Internal error occurred: failed calling webhook "mpod.kb.io": no endpoints available`, false, true},
		{`The connection to the server 127.0.0.1:44547 was refused - did you specify the right host or port?`, false, false},
		{`Unable to connect to the server: net/http: TLS handshake timeout`, false, false},
		{`Error from server (Timeout): the server was unable to return a response in the time allotted`, false, false},
		{`Error from server (ServiceUnavailable): etcdserver: request timed out`, false, false},
		{`Error from server: etcdserver: leader changed`, false, false},
	} {
		err := errors.New(tc.out)
		if got := NotFound(err); got != tc.notFound {
			t.Errorf("NotFound(%q) = %v", tc.out, got)
		}
		if got := Answered(err); got != tc.answered {
			t.Errorf("Answered(%q) = %v", tc.out, got)
		}
	}
	if NotFound(nil) || !Answered(nil) {
		t.Error("no error: found, and answered")
	}
}
