package argocd

import (
	"context"
	"fmt"
	"strings"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	appclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// Finalizers that make deleting an Application cascade to its resources.
const (
	CascadeForeground = "resources-finalizer.argocd.argoproj.io"
	CascadeBackground = "resources-finalizer.argocd.argoproj.io/background"
)

// Finalizers ArgoCD puts on an Application whose resources include
// deletion hooks: held until they ran (and, /cleanup, until they were
// cleaned up).
const (
	PreDeleteFinalizer  = "pre-delete-finalizer.argocd.argoproj.io"
	PostDeleteFinalizer = "post-delete-finalizer.argocd.argoproj.io"
)

// Deletion is how an Application is deleted.
type Deletion string

const (
	// Foreground deletes the resources first, then the Application.
	Foreground Deletion = "foreground"
	// Background deletes the Application, then the resources.
	Background Deletion = "background"
	// NonCascade deletes the Application only.
	NonCascade Deletion = "non-cascade"
)

// Apps drives Applications in the argocd namespace.
type Apps struct {
	client appclient.Interface
}

// NewApps builds the typed client.
func NewApps(cfg *rest.Config) (*Apps, error) {
	c, err := appclient.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("argocd client: %w", err)
	}
	return &Apps{client: c}, nil
}

func (a *Apps) api() interface {
	Get(context.Context, string, metav1.GetOptions) (*v1alpha1.Application, error)
	Create(context.Context, *v1alpha1.Application, metav1.CreateOptions) (*v1alpha1.Application, error)
	Update(context.Context, *v1alpha1.Application, metav1.UpdateOptions) (*v1alpha1.Application, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
} {
	return a.client.ArgoprojV1alpha1().Applications(Namespace)
}

// Get reads an Application.
func (a *Apps) Get(ctx context.Context, name string) (*v1alpha1.Application, error) {
	app, err := a.api().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get application %s/%s: %w", Namespace, name, err)
	}
	return app, nil
}

// Create creates an Application in the argocd namespace.
func (a *Apps) Create(ctx context.Context, app *v1alpha1.Application) error {
	app.Namespace = Namespace
	if _, err := a.api().Create(ctx, app, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create application %s/%s: %w", Namespace, app.Name, err)
	}
	return nil
}

// Update applies mutate to the current Application, retrying on conflicts.
func (a *Apps) Update(ctx context.Context, name string, mutate func(*v1alpha1.Application)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		app, err := a.api().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(app)
		_, err = a.api().Update(ctx, app, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update application %s/%s: %w", Namespace, name, err)
	}
	return nil
}

// Sync starts a sync operation, the way the API server does: by setting the
// Application's operation field, which the controller picks up. As the API
// server does, the operation takes the Application's retry policy.
func (a *Apps) Sync(ctx context.Context, name string, options ...string) error {
	return a.Update(ctx, name, func(app *v1alpha1.Application) {
		op := &v1alpha1.Operation{
			Sync:        &v1alpha1.SyncOperation{Prune: true, SyncOptions: options},
			InitiatedBy: v1alpha1.OperationInitiator{Username: "gitops-conformance"},
		}
		if p := app.Spec.SyncPolicy; p != nil && p.Retry != nil {
			op.Retry = *p.Retry
		}
		app.Operation = op
	})
}

// TerminateOperation asks the controller to end the Application's running
// operation, as `argocd app terminate-op` does (the API server sets the
// operation's phase to Terminating); it reports whether one was running.
func (a *Apps) TerminateOperation(ctx context.Context, name string) (bool, error) {
	running := false
	err := a.Update(ctx, name, func(app *v1alpha1.Application) {
		op := app.Status.OperationState
		running = op != nil && op.Phase == synccommon.OperationRunning
		if running {
			op.Phase = synccommon.OperationTerminating
		}
	})
	return running, err
}

// Refresh asks the controller to compare again; hard also drops the manifest cache.
func (a *Apps) Refresh(ctx context.Context, name string, hard bool) error {
	kind := "normal"
	if hard {
		kind = "hard"
	}
	return a.Update(ctx, name, func(app *v1alpha1.Application) {
		if app.Annotations == nil {
			app.Annotations = map[string]string{}
		}
		app.Annotations[v1alpha1.AnnotationKeyRefresh] = kind
	})
}

// Delete deletes an Application; the deletion mode sets the finalizer that
// decides what happens to its resources.
//
// An Application already being deleted is left as it is: the API server
// refuses a finalizer added to an object being deleted, so what is left to
// do is wait for it to go.
func (a *Apps) Delete(ctx context.Context, name string, mode Deletion) error {
	app, err := a.api().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read application %s/%s: %w", Namespace, name, err)
	}
	if app.DeletionTimestamp != nil {
		return nil
	}
	err = a.Update(ctx, name, func(app *v1alpha1.Application) {
		var kept []string
		for _, f := range app.Finalizers {
			if f != CascadeForeground && f != CascadeBackground {
				kept = append(kept, f)
			}
		}
		switch mode {
		case Foreground:
			kept = append(kept, CascadeForeground)
		case Background:
			kept = append(kept, CascadeBackground)
		}
		app.Finalizers = kept
	})
	if err != nil {
		return err
	}
	if err := a.api().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete application %s/%s: %w", Namespace, name, err)
	}
	return nil
}

// Describe is a one-line summary of an Application's state, for wait messages.
func Describe(app *v1alpha1.Application) string {
	s := fmt.Sprintf("sync %s, health %s", orNone(string(app.Status.Sync.Status)), orNone(string(app.Status.Health.Status)))
	if op := app.Status.OperationState; op != nil {
		s += fmt.Sprintf(", operation %s", op.Phase)
		if op.Message != "" {
			s += fmt.Sprintf(" %q", truncate(op.Message, 160))
		}
	}
	if app.Operation != nil {
		s += ", operation requested"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
