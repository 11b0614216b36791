package conform

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// The looks below say what a cell saw beside its verdict (observations):
// which fields differ, which namespace a webhook selects, what a deletion
// left. They read more than a line of kubectl would, so a reproduction's
// script prints that it does not take them.

// shownPaths bounds the fields one observation names.
const shownPaths = 12

// Drift says, for each resource the Application shows OutOfSync, which of
// the chart's fields the live object lacks (dropped by the API server) and
// which differ. It holds when none is OutOfSync.
func Drift(app string, r *appcell.Rendered) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		resources, err := check.StatusResources(ctx, app)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		var lines []string
		for _, res := range resources {
			if res.Status != "OutOfSync" {
				continue
			}
			ref := lifecycle.Ref(check.KindRef(res.Kind, res.Group), res.Namespace, res.Name)
			desired := r.Find(res.Group, res.Kind, res.Namespace, res.Name)
			if desired == nil {
				lines = append(lines, ref+" OutOfSync: not among the chart's rendered objects")
				continue
			}
			live, err := check.Get(ctx, lifecycle.Object{Kind: check.KindRef(res.Kind, res.Group), Namespace: res.Namespace, Name: res.Name})
			if lifecycle.NotFound(err) {
				lines = append(lines, ref+" OutOfSync: not in the cluster")
				continue
			}
			if err != nil {
				return false, "", assert.Unknown(err)
			}
			dropped, differ := check.Diff(desired.Object, live.Object)
			if len(dropped)+len(differ) == 0 {
				lines = append(lines, ref+" OutOfSync: every field of the chart is in the live object as the chart has it (what ArgoCD diffs is a field the cluster or a controller adds that ArgoCD does not ignore)")
				continue
			}
			lines = append(lines, fmt.Sprintf("%s OutOfSync: %d field(s) of the chart the live object lacks (dropped by the API server)%s; %d differ%s",
				ref, len(dropped), listed(dropped), len(differ), listed(differ)))
		}
		if len(lines) == 0 {
			return true, fmt.Sprintf("none of the application's %d resources OutOfSync", len(resources)), nil
		}
		return false, strings.Join(lines, "; "), nil
	}
}

func listed(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	shown := paths[:min(len(paths), shownPaths)]
	more := ""
	if len(paths) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(paths)-len(shown))
	}
	return ": " + strings.Join(shown, ", ") + more
}

// Selection says, for each of the chart's webhooks, what a failed call does
// (failurePolicy), which namespaces and objects it takes (selectors),
// whether it takes the namespace as it is labelled now, whether it is
// called for the creation of the chart's own Pods there, and which of the
// chart's workloads serve it. It holds when none failing closed is called
// for the chart's own Pods.
func Selection(namespace string, r *appcell.Rendered, webhooks func() []check.Webhook) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		ns, err := check.Get(ctx, env.Namespace(namespace))
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		labels := ns.GetLabels()
		ws := webhooks()
		if len(ws) == 0 {
			return true, "the chart has no admission webhook", nil
		}
		ok := true
		var lines []string
		for _, w := range ws {
			takes, err := check.Selects(w.NamespaceSelector, labels)
			if err != nil {
				return false, "", err
			}
			own := takes && check.CreatesPods(w.Rules)
			var pods []string
			for _, wl := range r.Workloads() {
				if in, _ := check.Selects(w.ObjectSelector, wl.PodLabels); own && in && wl.Namespace == namespace {
					pods = append(pods, wl.Ref())
				}
			}
			line := fmt.Sprintf("%s (%s %s): failurePolicy %s, namespaceSelector %q, objectSelector %q, takes %s %s: %v, called for the Pods of %s",
				w.Name, w.Config, w.ConfigName, cmp.Or(w.FailurePolicy, "Fail"), check.SelectorText(w.NamespaceSelector),
				check.SelectorText(w.ObjectSelector), namespace, check.SortedLabels(labels), takes, text.OrNone(strings.Join(pods, ", ")))
			if s := w.ClientConfig.Service; s != nil {
				line += ", served by service " + s.Namespace + "/" + s.Name
				if svc, found := r.Service(s.Namespace, s.Name); found {
					for _, b := range r.Backing(svc) {
						line += " (" + b.Ref() + ")"
					}
				}
			}
			if len(pods) > 0 && cmp.Or(w.FailurePolicy, "Fail") == "Fail" {
				ok = false
			}
			lines = append(lines, line)
		}
		return ok, strings.Join(lines, "; "), nil
	}
}
