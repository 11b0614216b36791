package fleet

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// webhookSaid is how the API server names the webhook that refused a
// request: it denied it, or it could not be called (failurePolicy Fail).
var webhookSaid = regexp.MustCompile(`(admission webhook|failed calling webhook) "([^"]+)"`)

// rejection is one request of an Application's a webhook refused.
type rejection struct {
	webhook string // the webhook's name, as the API server said it
	config  string // its configuration (kind/name), "" when none holds it now
	owner   string // the Application whose webhook it is, "" for none of the fleet's
	victim  string // the Application whose request it refused
	what    string // what was refused, and the message
	// onFrom and onTo: seen before the upgrade, after it
	onFrom, onTo bool
}

// rejections reads what the fleet's webhooks refused the fleet: the
// events of every namespace that name a webhook (a ReplicaSet's Pods it
// could not create, a Job's), and the Applications' own operation messages
// and conditions (an object a sync could not apply); each tied to the
// Application whose request it was and the one whose webhook it is.
func (f *fleet) rejections(dst *[]rejection) step.Step {
	return appcell.Reads("what a webhook of the fleet refused another Application (events, operations)", func(ctx context.Context) error {
		hooks, err := check.LiveWebhooks(ctx)
		if err != nil {
			return assert.Unknown(err)
		}
		events, err := check.List(ctx, lifecycle.Selection{Kinds: "events"})
		if err != nil {
			return assert.Unknown(err)
		}
		reads := f.readOn(f.to.String())
		var out []rejection
		for _, e := range events.Items {
			msg, _, _ := unstructured.NestedString(e.Object, "message")
			m := webhookSaid.FindStringSubmatch(msg)
			if m == nil {
				continue
			}
			kind, _, _ := unstructured.NestedString(e.Object, "involvedObject", "kind")
			ns, _, _ := unstructured.NestedString(e.Object, "involvedObject", "namespace")
			name, _, _ := unstructured.NestedString(e.Object, "involvedObject", "name")
			r := rejection{webhook: m[2], victim: ownerOf(reads, ns, name), what: fmt.Sprintf("%s %s/%s: %s", kind, ns, name, text.Clip(msg, 200))}
			r.onFrom, r.onTo = f.seen(e)
			out = append(out, r)
		}
		for _, n := range slices.Sorted(maps.Keys(reads)) {
			rd := reads[n]
			for _, said := range append([]string{rd.state.Message}, rd.state.Conditions...) {
				if m := webhookSaid.FindStringSubmatch(said); m != nil {
					out = append(out, rejection{webhook: m[2], victim: n, what: "its sync: " + text.Clip(said, 200), onTo: true})
				}
			}
		}
		for i := range out {
			out[i].config, out[i].owner = webhookOwner(reads, out[i].webhook, hooks)
		}
		*dst = dedupe(out)
		lifecycle.Note(ctx, "the fleet's webhooks refused %d request(s) of the fleet's Applications", len(*dst))
		return nil
	})
}

// seen says whether an event was seen before the upgrade (first) and
// after it (last); one whose times cannot be read counts as after.
func (f *fleet) seen(e unstructured.Unstructured) (before, after bool) {
	at := func(fields ...string) (time.Time, bool) {
		for _, field := range fields {
			if s, _, _ := unstructured.NestedString(e.Object, field); s != "" {
				if t, err := time.Parse(time.RFC3339, s); err == nil {
					return t, true
				}
			}
		}
		return time.Time{}, false
	}
	if t, ok := at("firstTimestamp", "eventTime"); ok && t.Before(f.upgraded) {
		before = true
	}
	t, ok := at("lastTimestamp", "eventTime")
	return before, !ok || !t.Before(f.upgraded)
}

// ownerOf is the Application (of reads, TO's) whose render holds the
// object of namespace ns named name, or its owner by name (a Deployment's
// ReplicaSet and Pods are named after it), else the one Application
// deploying into ns; "" for none.
func ownerOf(reads map[string]*read, ns, name string) string {
	var inNs []string
	for _, n := range slices.Sorted(maps.Keys(reads)) {
		r, err := reads[n].rendered()
		if err != nil || r == nil {
			continue
		}
		deploys := false
		for _, o := range r.Objects {
			if o.GetNamespace() != ns {
				continue
			}
			deploys = true
			if o.GetName() == name || strings.HasPrefix(name, o.GetName()+"-") {
				return n
			}
		}
		if deploys {
			inNs = append(inNs, n)
		}
	}
	if len(inNs) == 1 {
		return inNs[0]
	}
	return ""
}

// webhookOwner is the configuration holding the webhook named name and
// the Application of the fleet (as reads has them) whose render holds that
// configuration, or whose destination is the namespace of the Service the
// webhook calls (a controller that registers its own at run time).
func webhookOwner(reads map[string]*read, name string, live []check.Webhook) (string, string) {
	i := slices.IndexFunc(live, func(w check.Webhook) bool { return w.Name == name })
	if i < 0 {
		return "", ""
	}
	w := live[i]
	var byService string
	for _, n := range slices.Sorted(maps.Keys(reads)) {
		rd := reads[n]
		if rd == nil || rd.render == nil {
			continue
		}
		for _, o := range rd.render.Objects {
			if strings.EqualFold(o.GetKind(), w.Config) && o.GetName() == w.ConfigName {
				return w.ConfigRef(), n
			}
		}
		if dest, _, _ := unstructured.NestedString(rd.spec, "destination", "namespace"); w.ClientConfig.Service != nil && dest == w.ClientConfig.Service.Namespace && byService == "" {
			byService = n
		}
	}
	return w.ConfigRef(), byService
}

// dedupe keeps one rejection per webhook, victim and object.
func dedupe(rs []rejection) []rejection {
	seen := map[string]bool{}
	var out []rejection
	for _, r := range rs {
		k := r.webhook + "|" + r.victim + "|" + r.what
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// refusedLines are, per Application, what the fleet's webhooks refused it
// and what its own webhooks refused others: one line each, naming both.
func refusedLines(rs []rejection, from, to string) map[string][]string {
	out := map[string][]string{}
	for _, r := range rs {
		var ons []string
		if r.onFrom {
			ons = append(ons, from)
		}
		if r.onTo {
			ons = append(ons, to)
		}
		on := strings.Join(ons, " and ")
		whose := "a webhook no Application of the fleet holds"
		if r.owner != "" {
			whose = "Application " + r.owner + "'s webhook"
		}
		switch {
		case r.victim != "" && r.victim == r.owner:
			out[r.victim] = append(out[r.victim], fmt.Sprintf("its own webhook %s (%s) refused it on %s: %s", r.webhook, r.config, on, r.what))
		default:
			if r.victim != "" {
				out[r.victim] = append(out[r.victim], fmt.Sprintf("%s %s (%s) refused it on %s: %s", whose, r.webhook, text.OrNone(r.config), on, r.what))
			}
			if r.owner != "" {
				victim := "an object of no Application of the fleet"
				if r.victim != "" {
					victim = "Application " + r.victim
				}
				out[r.owner] = append(out[r.owner], fmt.Sprintf("its webhook %s (%s) refused %s on %s: %s", r.webhook, r.config, victim, on, r.what))
			}
		}
	}
	return out
}
