package argocd

import (
	"context"
	"testing"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gitops-conformance/suite/pkg/assert"
)

func TestOperationPhaseIs(t *testing.T) {
	app := func(requested bool, phase synccommon.OperationPhase) *v1alpha1.Application {
		a := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: Namespace},
			Status: v1alpha1.ApplicationStatus{OperationState: &v1alpha1.OperationState{Phase: phase}}}
		if requested {
			a.Operation = &v1alpha1.Operation{Sync: &v1alpha1.SyncOperation{}}
		}
		return a
	}
	for _, tc := range []struct {
		name      string
		requested bool
		state     synccommon.OperationPhase
		want      synccommon.OperationPhase
		ok        bool
	}{
		{"running keeps its request", true, synccommon.OperationRunning, synccommon.OperationRunning, true},
		{"finished, request consumed", false, synccommon.OperationSucceeded, synccommon.OperationSucceeded, true},
		{"a new request over the last result", true, synccommon.OperationSucceeded, synccommon.OperationSucceeded, false},
		{"another phase", false, synccommon.OperationFailed, synccommon.OperationSucceeded, false},
	} {
		a := &Apps{client: fake.NewSimpleClientset(app(tc.requested, tc.state))}
		ok, seen, err := a.OperationPhaseIs("a", tc.want)(context.Background())
		if err != nil || ok != tc.ok {
			t.Errorf("%s: OperationPhaseIs(%s) = %v (%s, %v), want %v", tc.name, tc.want, ok, seen, err, tc.ok)
		}
	}
}

// A read that fails for any reason but NotFound could not tell: no check on
// an Application (nor Gone) may answer yes or no from it.
func TestChecksOnAFailedReadCouldNotTell(t *testing.T) {
	client := fake.NewSimpleClientset()
	client.PrependReactor("get", "applications", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("etcdserver: request timed out")
	})
	a := &Apps{client: client}
	for name, check := range map[string]assert.Check{
		"SyncStatusIs":     a.SyncStatusIs("a", v1alpha1.SyncStatusCodeOutOfSync),
		"HealthIs":         a.HealthIs("a", "Healthy"),
		"OperationPhaseIs": a.OperationPhaseIs("a", synccommon.OperationRunning),
		"Gone":             a.Gone("a"),
	} {
		ok, _, err := check(context.Background())
		if ok || !assert.IsUnknown(err) {
			t.Errorf("%s on a failed read = %v, %v; want could not tell", name, ok, err)
		}
	}
	gone, _, err := (&Apps{client: fake.NewSimpleClientset()}).Gone("a")(context.Background())
	if !gone || err != nil {
		t.Errorf("Gone on NotFound = %v, %v", gone, err)
	}
}

// ComparedAt holds only at the commit pushed: a status left from an earlier
// commit (the controller never compared the new one) does not.
func TestComparedAt(t *testing.T) {
	app := &v1alpha1.Application{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: Namespace},
		Status: v1alpha1.ApplicationStatus{Sync: v1alpha1.SyncStatus{Status: v1alpha1.SyncStatusCodeSynced, Revision: "b358281193e3785595dc2a55a4d36b9538939e4f"}}}
	a := &Apps{client: fake.NewSimpleClientset(app)}
	for _, tc := range []struct {
		name, commit string
		ok           bool
	}{
		{"the commit compared", "b358281193e3785595dc2a55a4d36b9538939e4f", true},
		{"a commit pushed since, not compared", "5b0aaec8cadc0a6d3b8c4a1f0e9d7c6b5a4f3e2d", false},
		{"nothing pushed yet", "", false},
	} {
		ok, seen, err := a.ComparedAt("a", func() string { return tc.commit })(context.Background())
		if err != nil || ok != tc.ok {
			t.Errorf("%s: ComparedAt = %v (%s, %v), want %v", tc.name, ok, seen, err, tc.ok)
		}
	}
}
