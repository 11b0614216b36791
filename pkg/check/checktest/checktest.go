package checktest

import (
	"context"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube/kubetest"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// Cluster is a run whose API server is a fake holding objs (recorded
// objects, as the evidence of the runs shows them); a non-nil fail is its
// answer to every call.
func Cluster(fail error, objs ...*unstructured.Unstructured) context.Context {
	return lifecycle.WithRun(context.Background(), &lifecycle.Run{Kube: kubetest.Client(fail, objs...)})
}

// Refused is an API server that does not answer: a look at it could not tell.
var Refused = &url.Error{Op: "Get", URL: "https://127.0.0.1:6443/api", Err: syscall.ECONNREFUSED}

// Saw says where a look's answer (check at ctx) differs from the one
// expected: ok, whether it could not tell, and a part of what it saw. Each
// package's test keeps its own table type (unkeyed literals of a type from
// another package are what go vet's composites check refuses) and asks Saw
// of each row.
func Saw(t *testing.T, name string, check assert.Check, ctx context.Context, wantOK, unknown bool, want string) {
	t.Helper()
	ok, seen, err := check(ctx)
	if ok != wantOK || assert.IsUnknown(err) != unknown || (err != nil && !unknown) || !strings.Contains(seen, want) {
		t.Errorf("%s: ok %v, seen %q, err %v; want ok %v, could not tell %v, seen with %q", name, ok, seen, err, wantOK, unknown, want)
	}
}
