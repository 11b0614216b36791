package appstate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/check"
)

// State is what an Application shows at one point of the check: the
// answers ArgoCD acts on.
type State struct {
	Release string // the ArgoCD release running
	Sync    string // Synced, OutOfSync, Unknown
	Health  string
	// Phase and Message are the last operation's ("" for none); By says who
	// started it: "auto-sync" for ArgoCD's own, else the user's name.
	Phase, Message, By string
	// OutOfSync are the resources the Application shows OutOfSync.
	OutOfSync []string
	// Unhealthy are the resources whose health is not Healthy.
	Unhealthy []Health
	// Drift says, of each resource OutOfSync, the fields of its target the
	// live object lacks or holds otherwise (as ArgoCD normalizes it).
	Drift []string
	// Unexplained says why Unhealthy and Drift could not be read from
	// ArgoCD's API server ("" when they were).
	Unexplained string
	// Hooks are the hooks in the last operation's result, with how each ended.
	Hooks []Hook
	// Conditions are the Application's conditions (type: message).
	Conditions []string
	// Managed are the resources the Application manages (its
	// status.resources), by ref: what ArgoCD excludes (resource.exclusions)
	// is not among them.
	Managed []string
}

// Health is one resource's health: its status and message.
type Health struct {
	Ref     string // group/kind namespace/name
	Status  string // Degraded, Progressing, Missing, Suspended, Unknown
	Message string // clipped
}

func (h Health) String() string { return h.Ref + ": " + h.Status + MessageOf(h.Message) }

// healthLines are the resources' health, one a resource.
func healthLines(hs []Health) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.String())
	}
	return out
}

// Hook is one hook of an operation's result.
type Hook struct {
	Ref, Type string // group/kind namespace/name; PreSync, Sync, PostSync, SyncFail, PreDelete, PostDelete
	Phase     string // Succeeded, Failed, Running, Terminating ...
	Message   string
}

func (h Hook) String() string {
	s := fmt.Sprintf("%s %s: %s", h.Type, h.Ref, text.OrNone(h.Phase))
	if h.Message != "" {
		s += " (" + text.Clip(h.Message, 120) + ")"
	}
	return s
}

// Of reads an Application's state.
func Of(app *v1alpha1.Application, release string) State {
	s := State{Release: release, Sync: string(app.Status.Sync.Status), Health: string(app.Status.Health.Status)}
	for _, r := range app.Status.Resources {
		ref := ResourceRef(r.Group, r.Kind, r.Namespace, r.Name)
		s.Managed = append(s.Managed, ref)
		if r.Status == v1alpha1.SyncStatusCodeOutOfSync {
			s.OutOfSync = append(s.OutOfSync, ref)
		}
		if h := r.Health; h != nil && h.Status != "" && h.Status != "Healthy" {
			s.Unhealthy = append(s.Unhealthy, Health{Ref: ref, Status: string(h.Status), Message: text.Clip(h.Message, 120)})
		}
	}
	for _, c := range app.Status.Conditions {
		s.Conditions = append(s.Conditions, c.Type+": "+text.Clip(c.Message, 200))
	}
	if op := app.Status.OperationState; op != nil {
		s.Phase, s.Message = string(op.Phase), text.Clip(op.Message, 300)
		switch by := op.Operation.InitiatedBy; {
		case by.Automated:
			s.By = "auto-sync"
		case by.Username != "":
			s.By = by.Username
		}
		if op.SyncResult != nil {
			for _, r := range op.SyncResult.Resources {
				if r.HookType == "" {
					continue
				}
				s.Hooks = append(s.Hooks, Hook{Ref: ResourceRef(r.Group, r.Kind, r.Namespace, r.Name), Type: string(r.HookType),
					Phase: string(r.HookPhase), Message: r.Message})
			}
		}
	}
	return s
}

// ResourceRef names a resource as ArgoCD does: group/kind namespace/name.
func ResourceRef(group, kind, namespace, name string) string {
	return argocd.Resource{Group: group, Kind: kind, Namespace: namespace, Name: name}.Ref()
}

// Explain adds what ArgoCD's API server shows of the resources: their
// health (the Application's status holds none from 3.0) and, for each
// OutOfSync, the fields that differ.
func (s *State) Explain(resources []argocd.Resource) {
	s.Unhealthy = nil
	for _, r := range resources {
		ref := r.Ref()
		if r.Health != "" && r.Health != "Healthy" {
			s.Unhealthy = append(s.Unhealthy, Health{Ref: ref, Status: r.Health, Message: text.Clip(r.HealthMessage, 120)})
		}
		if !slices.Contains(s.OutOfSync, ref) {
			continue
		}
		switch {
		case r.Target == nil:
			s.Drift = append(s.Drift, ref+": not in the render (to prune)")
		case r.Live == nil:
			s.Drift = append(s.Drift, ref+": not in the cluster")
		default:
			dropped, differ := check.Diff(r.Target, r.Live)
			s.Drift = append(s.Drift, fmt.Sprintf("%s: differ %s; missing %s", ref, text.OrNone(strings.Join(first(differ, 6), " ")), text.OrNone(strings.Join(first(dropped, 6), " "))))
		}
	}
}

// first is at most n of items, saying how many more there are.
func first(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(slices.Clone(items[:n]), fmt.Sprintf("(and %d more)", len(items)-n))
}

// Lines are the state, one fact a line, as the report and evidence show it.
func (s State) Lines() []string {
	out := []string{
		"argocd " + s.Release,
		"sync " + text.OrNone(s.Sync) + ", health " + text.OrNone(s.Health),
		"operation " + text.OrNone(s.Phase) + by(s.By) + MessageOf(s.Message),
		"OutOfSync: " + text.OrNone(strings.Join(s.OutOfSync, ", ")),
		"not Healthy: " + text.OrNone(strings.Join(healthLines(s.Unhealthy), ", ")),
	}
	if len(s.Drift) > 0 {
		out = append(out, "OutOfSync fields: "+strings.Join(s.Drift, "; "))
	}
	if s.Unexplained != "" {
		out = append(out, "resources' health and fields: could not tell: "+text.Clip(s.Unexplained, 300))
	}
	var hooks []string
	for _, h := range s.Hooks {
		hooks = append(hooks, h.String())
	}
	out = append(out, "hooks: "+text.OrNone(strings.Join(hooks, "; ")))
	if len(s.Conditions) > 0 {
		out = append(out, "conditions: "+strings.Join(s.Conditions, "; "))
	}
	return out
}

func (s State) String() string { return strings.Join(s.Lines(), "; ") }

// by says who started an operation, if known.
func by(who string) string {
	if who == "" {
		return ""
	}
	return " by " + who
}

// MessageOf is a message as a state line shows it: " (message)", or "".
func MessageOf(m string) string {
	if m == "" {
		return ""
	}
	return " (" + m + ")"
}

// Differences are what ArgoCD acts on that differs between two states: the
// sync and health status, the operation's phase, the resources OutOfSync,
// and the hooks (each named with how it ended on both sides).
func Differences(a, b State) []string {
	var out []string
	if a.Sync != b.Sync {
		out = append(out, fmt.Sprintf("sync %s -> %s", text.OrNone(a.Sync), text.OrNone(b.Sync)))
	}
	if a.Health != b.Health {
		out = append(out, fmt.Sprintf("health %s -> %s", text.OrNone(a.Health), text.OrNone(b.Health)))
	}
	if a.Phase != b.Phase {
		out = append(out, fmt.Sprintf("operation %s -> %s%s", text.OrNone(a.Phase), text.OrNone(b.Phase), MessageOf(b.Message)))
	}
	if x, y := strings.Join(a.OutOfSync, ", "), strings.Join(b.OutOfSync, ", "); x != y {
		out = append(out, fmt.Sprintf("OutOfSync %s -> %s", text.OrNone(x), text.OrNone(y)))
	}
	if x, y := strings.Join(healthLines(a.Unhealthy), ", "), strings.Join(healthLines(b.Unhealthy), ", "); x != y {
		out = append(out, fmt.Sprintf("not Healthy %s -> %s", text.OrNone(x), text.OrNone(y)))
	}
	ha, hb := hookPhases(a.Hooks), hookPhases(b.Hooks)
	for _, ref := range slices.Sorted(func(yield func(string) bool) {
		for r := range ha {
			if !yield(r) {
				return
			}
		}
		for r := range hb {
			if _, ok := ha[r]; !ok && !yield(r) {
				return
			}
		}
	}) {
		if ha[ref] != hb[ref] {
			out = append(out, fmt.Sprintf("hook %s: %s -> %s", ref, orAbsentHook(ha[ref]), orAbsentHook(hb[ref])))
		}
	}
	return out
}

func hookPhases(hooks []Hook) map[string]string {
	m := map[string]string{}
	for _, h := range hooks {
		m[h.Type+" "+h.Ref] = text.OrNone(h.Phase)
	}
	return m
}

func orAbsentHook(phase string) string {
	if phase == "" {
		return "did not run"
	}
	return phase
}
