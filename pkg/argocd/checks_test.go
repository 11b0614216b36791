package argocd

import (
	"context"
	"testing"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"github.com/argoproj/argo-cd/v2/pkg/client/clientset/versioned/fake"
	synccommon "github.com/argoproj/gitops-engine/pkg/sync/common"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
