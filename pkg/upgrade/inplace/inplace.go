package inplace

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/step"
)

// blockedCertain is how long ArgoCD's new Pods rejected by a webhook make
// that the cause of the upgrade not finishing, as make conform judges a
// chart's own (the controllers' retries back off to well under it).
const blockedCertain = time.Minute

// Owner is the Application whose cell upgrades ArgoCD: whose objects the
// verdict can blame.
type Owner interface {
	// AppName is the Application's name; "" for a fleet's upgrade, which
	// is no one Application's.
	AppName() string
	// OwnWebhooks are, of the live webhooks, those of the Application (of
	// the fleet's Applications): the Application's name by configuration
	// (ConfigRef).
	OwnWebhooks(ctx context.Context, live []check.Webhook) map[string]string
}

// upgrade is one in-place upgrade to a release.
type upgrade struct {
	to    catalog.Release
	owner Owner
}

// How is how the team upgrades ArgoCD: the method ("": as TO's upgrade
// guide says), and for a self-managed ArgoCD its Application's sync options.
type How struct {
	Method      argocd.Method
	SyncOptions []string
	// Overlay is the team's kustomize overlay (argocd.Kustomize).
	Overlay argocd.Overlay
}

// Steps upgrade ArgoCD in place from `from` to `to` the way the team does
// it, then wait for to's workloads to run. An upgrade the API server
// refuses (or ArgoCD's own sync fails), or one whose Pods cannot start, is
// the cell's verdict: BROKEN with the cause the cluster gave, at once, and
// the cell ends there (no step after it would find a controller to wait on).
func Steps(from, to catalog.Release, how How, owner Owner) []step.Step {
	k := &upgrade{to: to, owner: owner}
	rolledOut := step.Look("argocd "+to.String()+"'s workloads rolled out (or what keeps them from it)", k.rolledOut)
	switch how.Method {
	case argocd.SelfManaged:
		return append(k.selfManaged(from, how.SyncOptions), rolledOut)
	case argocd.Kustomize:
		return []step.Step{env.UpgradeArgoCDOverlay(to, how.Overlay, k.refused), rolledOut}
	}
	return []step.Step{env.UpgradeArgoCDBy(to, how.Method, k.refused), rolledOut}
}

// refused concludes the cell when the API server refused TO's manifests.
func (k *upgrade) refused(ctx context.Context, err *argocd.ApplyError) {
	k.conclude(ctx, "upgrade-refused", refusedWhy(k.to, err))
}

// refusedWhy is the verdict's reason for an upgrade to `to` the API server
// refused: what it said and whether kubectl applied the rest all the same.
func refusedWhy(to catalog.Release, err *argocd.ApplyError) string {
	said := strings.Join(err.Refusals, "; ")
	if said == "" {
		said = strings.TrimSpace(err.Err.Error())
	}
	what, rest := "the API server refused its manifests", ""
	switch {
	case err.Stage == "build":
		what = "the overlay does not build over its manifests (nothing applied)"
	case err.Applied > 0:
		rest = fmt.Sprintf("; kubectl applied %d other objects all the same: ArgoCD is left part upgraded", err.Applied)
	}
	return fmt.Sprintf("the upgrade to %s failed: %s (%s): %s%s", to, what, err.Method.Command(), text.Clip(said, 600), rest)
}

// rolledOut waits for every Deployment and StatefulSet of TO to run its
// new spec (check.UpToDate, what `kubectl rollout status` waits for). One
// whose new Pods a webhook keeps rejecting for blockedCertain ends the wait
// at once with that cause; one not up within Intervals.Install ends it with
// what the cluster said of it. Either concludes the cell BROKEN, naming the
// webhook's configuration and whether it is the Application's.
func (k *upgrade) rolledOut(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
	t.Helper()
	if assert.RecordFrom(ctx).Stopped() {
		return ctx
	}
	_ = env.InRun(func(ctx context.Context) error {
		k.waitRolledOut(ctx, t, cfg)
		return nil
	})(ctx)
	return ctx
}

// waitRolledOut is rolledOut's wait, in a run.
func (k *upgrade) waitRolledOut(ctx context.Context, t *testing.T, cfg *envconf.Config) {
	rec := assert.RecordFrom(ctx)
	r := lifecycle.From(ctx)
	start := time.Now()
	ws, err := r.Installer.Workloads(ctx)
	if err != nil || len(ws) == 0 {
		rec.Fail(fmt.Sprintf("list argocd %s's workloads: %v", k.to, err))
		t.Fatalf("list argocd %s's workloads: %v (%d)", k.to, err, len(ws))
	}
	var up, blocked []assert.Check
	for _, w := range ws {
		cw := check.Workload{Kind: w.Kind, Namespace: argocd.Namespace, Name: w.Name, Replicas: int64(w.Replicas)}
		up = append(up, check.UpToDate(cw))
		blocked = append(blocked, check.BlockedUpdate(cw))
	}
	cause := "a webhook keeps ArgoCD " + k.to.String() + "'s new Pods from starting"
	wait := check.UnlessBlocked(assert.All(up...), assert.Any(blocked...), cause, blockedCertain, time.Now)
	err = assert.Eventually(ctx, "argocd "+k.to.String()+"'s workloads rolled out", assert.Intervals.Install, wait)
	if err == nil {
		if _, err := r.Installer.Verify(ctx, k.to); err != nil {
			rec.Fail(err.Error())
			t.Fatal(err)
		}
		lifecycle.Note(ctx, "argocd %s: every workload rolled out in %s", k.to, time.Since(start).Round(time.Second))
		return
	}
	var stuck *check.BlockedError
	if errors.As(err, &stuck) {
		cs, err := k.culprits(ctx, stuck.Seen)
		k.conclude(ctx, "upgrade-blocked", fmt.Sprintf("the upgrade to %s cannot finish: %s (%s after the apply): %s%s",
			k.to, k.blame(cs, err), time.Since(start).Round(time.Second), text.Clip(stuck.Seen, 500), k.warnings(ctx)))
		k.releaseBlocking(ctx, t, cfg, cs)
		return
	}
	if assert.IsUnknown(err) {
		rec.Fail(err.Error())
		t.Fatal(err)
	}
	k.conclude(ctx, "upgrade-not-finished", fmt.Sprintf("the upgrade to %s did not finish within %s: %s%s",
		k.to, assert.Intervals.Install, text.Clip(err.Error(), 500), k.warnings(ctx)))
}

var namedWebhook = regexp.MustCompile(`webhook \\?"([^"\\]+)\\?"`)

// culprit is a live webhook a blocked wait's answer names, each with the
// Application whose configuration it is ("" for none tried); read once,
// for the verdict's words (blame) and for the release after it
// (releaseBlocking).
type culprit struct {
	check.Webhook
	of string
}

// culprits reads the live webhooks once and keeps those seen names.
func (k *upgrade) culprits(ctx context.Context, seen string) ([]culprit, error) {
	live, err := check.LiveWebhooks(ctx)
	if err != nil {
		return nil, err
	}
	ours := k.owner.OwnWebhooks(ctx, live)
	var out []culprit
	for _, m := range namedWebhook.FindAllStringSubmatch(seen, -1) {
		for _, w := range live {
			if w.Name == m[1] && !slices.ContainsFunc(out, func(c culprit) bool { return c.Name == w.Name && c.ConfigRef() == w.ConfigRef() }) {
				out = append(out, culprit{w, ours[w.ConfigRef()]})
			}
		}
	}
	return out, nil
}

// blame names the webhook configurations whose webhooks the failure
// quotes, each said to be the Application's or not.
func (k *upgrade) blame(cs []culprit, err error) string {
	if err != nil {
		return "a webhook (its configuration could not be read: " + err.Error() + ")"
	}
	if len(cs) == 0 {
		return "a webhook no configuration names now"
	}
	var named []string
	for _, c := range cs {
		whose := "not of application " + k.owner.AppName()
		switch {
		case c.of != "":
			whose = "application " + c.of + "'s own"
		case k.owner.AppName() == "":
			whose = "of no Application of the fleet"
		}
		named = append(named, fmt.Sprintf("webhook %q of %s (%s)", c.Name, c.ConfigRef(), whose))
	}
	return strings.Join(named, " and ") + " rejects ArgoCD's new Pods"
}

// releaseBlocking deletes the Application's webhook configurations that
// keep ArgoCD's Pods out, once the cause is recorded: the cell's cleanup
// needs a running controller to delete the Application, and nothing may
// wait on one that cannot start. A configuration not of the Application is
// left as it is (the report names it).
func (k *upgrade) releaseBlocking(ctx context.Context, t *testing.T, cfg *envconf.Config, cs []culprit) {
	var refs []string
	var deletes []step.Step
	for _, c := range cs {
		if c.of != "" && !slices.Contains(refs, c.ConfigRef()) {
			refs = append(refs, c.ConfigRef())
			deletes = append(deletes, env.Delete(c.ConfigObject()))
		}
	}
	if len(deletes) == 0 {
		return
	}
	lifecycle.Note(ctx, "after the verdict: deleting %s so that ArgoCD can start for the cleanup", strings.Join(refs, ", "))
	env.InOrder("release what keeps ArgoCD's Pods out", deletes...).Func()(ctx, t, cfg)
}

// warnings are the newest Warning events in ArgoCD's namespace, as a
// reason's tail ("; events: ...").
func (k *upgrade) warnings(ctx context.Context) string {
	list, err := check.List(ctx, lifecycle.Selection{Kinds: "events", Namespace: argocd.Namespace})
	if err != nil {
		return "; the events could not be read: " + err.Error()
	}
	items := slices.DeleteFunc(slices.Clone(list.Items), func(e unstructured.Unstructured) bool {
		kind, _, _ := unstructured.NestedString(e.Object, "type")
		return kind != "Warning"
	})
	slices.SortFunc(items, func(a, b unstructured.Unstructured) int {
		return strings.Compare(lastSeen(b), lastSeen(a))
	})
	var lines []string
	for _, e := range items {
		if len(lines) == 3 {
			break
		}
		reason, _, _ := unstructured.NestedString(e.Object, "reason")
		kind, _, _ := unstructured.NestedString(e.Object, "involvedObject", "kind")
		name, _, _ := unstructured.NestedString(e.Object, "involvedObject", "name")
		msg, _, _ := unstructured.NestedString(e.Object, "message")
		count, _, _ := unstructured.NestedInt64(e.Object, "count")
		lines = append(lines, fmt.Sprintf("%s %s/%s x%d: %s", reason, strings.ToLower(kind), name, max(count, 1), text.Clip(msg, 240)))
	}
	if len(lines) == 0 {
		return "; no Warning event in " + argocd.Namespace
	}
	return "; newest Warning events in " + argocd.Namespace + ": " + strings.Join(lines, "; ")
}

// lastSeen is when an event was last seen, as its RFC 3339 text sorts.
func lastSeen(e unstructured.Unstructured) string {
	for _, f := range []string{"lastTimestamp", "eventTime"} {
		if t, _, _ := unstructured.NestedString(e.Object, f); t != "" {
			return t
		}
	}
	return e.GetCreationTimestamp().UTC().Format(time.RFC3339)
}

// conclude ends the cell BROKEN with why, its evidence dumped under name
// first: the state the verdict rests on.
func (k *upgrade) conclude(ctx context.Context, name, why string) {
	r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
	r.DumpEvidence(ctx, c, name)
	assert.RecordFrom(ctx).Conclude(report.Broken, why)
	lifecycle.Note(ctx, "verdict BROKEN: %s (evidence: %s/)", why, name)
}
