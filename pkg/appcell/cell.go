package appcell

import (
	"context"
	"maps"
	"slices"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Cell is the skeleton of a cell holding a user's Application: what was
// there before it, and what of it is released at the end. A command's cell
// embeds it and fills in Rendered and Namespaces as it learns them.
type Cell struct {
	// Before are the webhook configurations the cluster had before the
	// Application (kind/name), nil until SeeBefore has read them.
	Before map[string]bool
	// Recorded are the Application's webhooks as installed, if the command
	// records them.
	Recorded []check.Webhook
	// Rendered are the webhooks of the Application's manifests as known
	// now; Namespaces the namespaces its objects live in.
	Rendered   func() ([]check.Webhook, error)
	Namespaces func() []string
}

// SeeBefore records the webhook configurations there before the
// Application (what: the step's name).
func (k *Cell) SeeBefore(what string) step.Step {
	return Reads(what, func(ctx context.Context) error {
		var err error
		k.Before, err = check.WebhookConfigs(ctx)
		return err
	})
}

// ForgetWebhooksAtEnd deletes, when the cell ends, the Application's
// webhook configurations still there: those it renders, those recorded as
// installed, and those its controllers registered at run time (ChartWebhooks:
// a Kyverno's, labelled by it, outlive the Application). One left failing
// closed would reject what the next cells do.
func (k *Cell) ForgetWebhooksAtEnd(what string) step.Step {
	return env.DeleteListedAtEnd(what, func(ctx context.Context) ([]string, error) {
		rendered, err := k.Rendered()
		if err != nil {
			return nil, err
		}
		// read again: a controller may have registered more since they
		// were recorded
		live, err := check.LiveWebhooks(ctx)
		if err != nil {
			return nil, err
		}
		var registered []check.Webhook
		if k.Before != nil { // else the cell ended before it knew what was there
			registered = ChartWebhooks(live, rendered, k.Before, k.Namespaces())
		}
		return check.ConfigRefs(append(append(rendered, k.Recorded...), registered...)), nil
	})
}

// ChartWebhooks are, of the live webhooks, the Application's: those of the
// configurations it renders, and those of configurations new since before
// calling a service in one of its namespaces (a controller of it registers
// them at run time).
func ChartWebhooks(live []check.Webhook, rendered []check.Webhook, before map[string]bool, namespaces []string) []check.Webhook {
	ofChart := map[string]bool{}
	for _, w := range rendered {
		ofChart[w.ConfigRef()] = true
	}
	for _, w := range live {
		key := w.ConfigRef()
		if s := w.ClientConfig.Service; !before[key] && s != nil && slices.Contains(namespaces, s.Namespace) {
			ofChart[key] = true
		}
	}
	var out []check.Webhook
	for _, w := range live {
		if ofChart[w.ConfigRef()] {
			out = append(out, w)
		}
	}
	return out
}

// Namespace is the namespace a cell installs into, as a platform team
// makes it beforehand: no labels but Labels. One ArgoCD creates
// (CreateNamespace=true) the cell does not make, and deletes at the end.
type Namespace struct {
	Name          string
	Labels        map[string]string
	ArgoCDCreates bool
}

// Steps make the namespace beforehand, or delete at the end the one ArgoCD
// creates. A namespace the suite's cluster needs is left alone.
func (n Namespace) Steps() []step.Step {
	switch {
	case n.Name == "" || slices.Contains(Reserved, n.Name):
		return nil
	case n.ArgoCDCreates:
		return []step.Step{env.DeleteObjectAtEnd(env.Namespace(n.Name), "ArgoCD created it (CreateNamespace=true) and leaves it")}
	}
	return []step.Step{n.make()}
}

// Again makes the namespace made beforehand again, in case a deletion took
// it (a namespace ArgoCD creates, it creates again).
func (n Namespace) Again() []step.Step {
	if n.Name == "" || slices.Contains(Reserved, n.Name) || n.ArgoCDCreates {
		return nil
	}
	m := n.make()
	return []step.Step{m.As(m.Name() + " again")}
}

func (n Namespace) make() step.Step {
	var labels []string
	for _, k := range slices.Sorted(maps.Keys(n.Labels)) {
		labels = append(labels, k+"="+n.Labels[k])
	}
	return env.ApplyNamespace(n.Name, labels...)
}

// HookFinalizersAtEnd take, when the cell ends, ArgoCD's hook finalizer off
// the hooks still holding it: a held hook holds the Application's deletion
// too. Registered after the Application, they run before that goes.
func HookFinalizersAtEnd(hooks []Object) []step.Step {
	var out []step.Step
	for _, h := range hooks {
		out = append(out, env.RemoveFinalizerAtEnd(h.Ref(), check.HookFinalizer))
	}
	return out
}

// Reads is a step of a cell that only reads, named what, in a run only
// (env.InRun): what it reads (the chart, the webhooks, the Application's
// state) is the run's, and repro.sh has no line for it.
func Reads(what string, action func(ctx context.Context) error) step.Step {
	return step.Look(what, assert.Step(what, env.InRun(action)))
}
