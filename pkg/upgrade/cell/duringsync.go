package cell

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// A commit pushed while ArgoCD syncs the one before (argo-cd#27875: "after
// upgrading from v3.3.9 to v3.4.2, applications with automated sync policy
// (without selfHeal) no longer auto-sync ... when a new commit arrives while
// the app is still being synchronized", with the manifest-generate-paths
// annotation): DURING_SYNC=N trials on each release, each a commit A whose
// PreSync hook keeps its sync running, then a commit B pushed while it runs;
// whether ArgoCD then syncs B by itself, k of N.
const (
	// SlowHook is the Job the trials add to the source as a PreSync hook:
	// it runs HookRuns, long enough for B to be pushed and for the
	// controller's comparisons after the sync to resolve the branch anew
	// (the repo server keeps a revision for timeout.reconciliation, 15 s
	// in the suite's installs).
	SlowHook = "gitops-conformance-sync-in-progress"
	HookRuns = 30 * time.Second
	// SyncStarts bounds the wait for ArgoCD's own sync of A to start, and
	// SyncedB the wait for its own sync of B: ArgoCD acts on a commit in
	// 23 s to 1m14s here (runs 20261128-091714, -084932), and B's sync
	// runs the hook again.
	SyncStarts = 2 * time.Minute
	SyncedB    = 3 * time.Minute
)

// Trial is one commit pushed during a sync: what ArgoCD did with it.
type Trial struct {
	A, B string // the commits pushed
	// Started is the wait for ArgoCD's own sync of A.
	Started env.Observed
	// During says B was pushed while that sync ran: a trial that counts.
	During bool
	// Observed is the wait for ArgoCD's own sync of B.
	env.Observed
	// Log is, of a B not synced, what the controller logged of the
	// Application's auto-sync since A was pushed.
	Log string
	// Asked says what ArgoCD was asked after each push (refreshAsked).
	Asked string
}

// Trials are a release's trials.
type Trials []Trial

// Tally is how many trials counted, and in how many ArgoCD synced B by itself.
func (ts Trials) Tally() (synced, counted int) {
	for _, t := range ts {
		if t.During {
			counted++
			if t.Held {
				synced++
			}
		}
	}
	return synced, counted
}

// String is the trials as the report says them: "k/N synced by ArgoCD
// itself", and what was not.
func (ts Trials) String() string {
	synced, counted := ts.Tally()
	s := fmt.Sprintf("%d/%d synced by ArgoCD itself", synced, counted)
	if void := len(ts) - counted; void > 0 {
		s += fmt.Sprintf(" (%d of %d trials not counted: B not pushed during a sync of A)", void, len(ts))
	}
	return s
}

// problem says, for the verdict, what ArgoCD did not do on release on: ""
// when it synced every B by itself, or when no trial ran.
func (ts Trials) problem(on string) string {
	if len(ts) == 0 {
		return ""
	}
	synced, counted := ts.Tally()
	if counted == 0 {
		return fmt.Sprintf("a commit pushed while ArgoCD synced the one before (argo-cd#27875): no trial counted on %s: %s", on, ts[0].Started.Seen)
	}
	if synced == counted {
		return ""
	}
	var first Trial
	for _, t := range ts {
		if t.During && !t.Held {
			first = t
			break
		}
	}
	asked := first.Asked
	if asked == "" {
		asked = "no refresh asked for"
	}
	s := fmt.Sprintf("a commit pushed while ArgoCD synced the one before (argo-cd#27875): %s on %s, within %s with %s; not synced: %s",
		ts, on, SyncedB, asked, first.Seen)
	if first.Log != "" {
		s += "; the controller logged: " + first.Log
	}
	return s
}

// duringSync is the trials on release on (DURING_SYNC), then the source put
// back as base (what it was before them) and synced: ArgoCD's own sync, or,
// where it does not come, the team's by hand. An Application that does not
// sync by itself has no auto-sync to try: it is said, and none run.
func (k *cell) duringSync(dst *Trials, on catalog.Release, annotated bool) []step.Step {
	n, name := k.spec.DuringSync, k.app.Name()
	if n == 0 {
		return nil
	}
	if !k.automated() {
		return []step.Step{step.Act("DURING_SYNC: application "+name+" does not sync by itself: no trial on "+on.String(), func(ctx context.Context, _ *testing.T, _ *envconf.Config) context.Context {
			lifecycle.Note(ctx, "DURING_SYNC=%d: application %s does not sync by itself (no automated sync policy): a commit during a sync is a trial of auto-sync, none run", n, name)
			return ctx
		})}
	}
	*dst = make(Trials, n)
	var steps []step.Step
	if on == k.From {
		steps = append(steps, env.DeleteObjectAtEnd(env.Job(k.markerNamespace(), SlowHook), "the hook make upgrade-check's trials pushed"))
	}
	// the trials start synced: a commit before them that ArgoCD did not
	// sync by itself (v3.4.2, run 20261128-110639: none after the
	// upgrade) is synced by hand first, as its team would
	steps = append(steps, k.byHand(assert.All(check.SyncStatusIs(name, v1alpha1.SyncStatusCodeSynced), k.completed()), "the commit before the trials", on.String()))
	for i := range n {
		steps = append(steps, k.trial(&(*dst)[i], i+1, on, annotated)...)
	}
	var restored string
	base := k.withMarker(annotated, "")
	steps = append(steps, k.pushed(env.PushRepoInto(name, base, &restored).As("push application "+name+"'s source as before the trials on "+on.String()))...)
	return append(steps,
		env.ObserveWithin("the source as before the trials synced by ArgoCD itself on "+on.String(), SyncedB,
			check.OperationAt(name, synccommon.OperationSucceeded, func() string { return restored }, true)),
		k.byHand(check.OperationAt(name, synccommon.OperationSucceeded, func() string { return restored }, false), "the source as before the trials", on.String()))
}

// trial is trial i on release on: A pushed, its sync by ArgoCD seen
// running, B pushed, whether ArgoCD syncs B by itself; B synced by hand
// where it did not (as its team would), so the next trial starts synced.
func (k *cell) trial(t *Trial, i int, on catalog.Release, annotated bool) []step.Step {
	name := k.app.Name()
	what := fmt.Sprintf("trial %d on %s", i, on)
	a, b := func() string { return t.A }, func() string { return t.B }
	t.Asked = k.refreshAsked()
	steps := k.pushed(env.PushRepoInto(name, k.withTrial(annotated, on, fmt.Sprintf("%d A", i)), &t.A).As(what + ": push commit A (a PreSync hook that runs " + HookRuns.String() + ") to application " + name + "'s source"))
	steps = append(steps, env.ObserveInto(what+": ArgoCD's own sync of A running", SyncStarts, check.OperationAt(name, synccommon.OperationRunning, a, true), &t.Started))
	steps = append(steps, k.pushed(env.PushRepoInto(name, k.withTrial(annotated, on, fmt.Sprintf("%d B", i)), &t.B).As(what+": push commit B while A syncs"))...)
	return append(steps,
		appcell.Reads(what+": the sync of A still running when B was pushed", func(ctx context.Context) error {
			app, err := check.App(ctx, name)
			if err != nil {
				return assert.Unknown(err)
			}
			op := app.Status.OperationState
			t.During = t.Started.Held && op != nil && op.Phase == synccommon.OperationRunning && argocd.OperationRevision(op) == t.A
			return nil
		}),
		env.ObserveWithin(what+": the sync of A ended", assert.Intervals.Install, k.completed()),
		env.ObserveInto(what+": commit B synced by ArgoCD itself ("+t.Asked+")", SyncedB, check.OperationAt(name, synccommon.OperationSucceeded, b, true), &t.Observed),
		k.autoSyncLog(t, what),
		k.byHand(check.OperationAt(name, synccommon.OperationSucceeded, b, false), what+"'s commit B", on.String()),
	)
}

// byHand syncs the Application as its team would unless synced holds (what
// was pushed is synced, by ArgoCD or not), and waits for the sync to end.
func (k *cell) byHand(synced assert.Check, what, on string) step.Step {
	name := k.app.Name()
	return env.Unless(synced, "sync "+what+" by hand on "+on,
		env.Sync(name, k.syncOptions()...).As("sync application "+name+" on "+on+" ("+what+", not synced by ArgoCD itself)"),
		env.ObserveWithin("the sync of "+what+" on "+on+" completed", assert.Intervals.Install, k.completed()),
		env.ObserveWithin("application "+name+" Synced on "+on, assert.Intervals.Hold, check.SyncStatusIs(name, v1alpha1.SyncStatusCodeSynced)))
}

// autoSyncLog keeps, of a B not synced, the controller's log lines of the
// Application's auto-sync since A was pushed: what it decided, in its words.
func (k *cell) autoSyncLog(t *Trial, what string) step.Step {
	name := k.app.Name()
	return appcell.Reads(what+": the controller's log of the auto-sync, if B was not synced", func(ctx context.Context) error {
		if t.Held || !t.During {
			return nil
		}
		out, err := check.ControllerLog(ctx, 6*time.Minute)
		if err != nil {
			t.Log = "could not tell: " + err.Error()
			return nil
		}
		lines := AutoSyncLines(out, name)
		lifecycle.CellFrom(ctx).WriteEvidence(fmt.Sprintf("autosync-%s.log", strings.ReplaceAll(what, " ", "-")), strings.Join(lines, "\n")+"\n")
		if len(lines) > 0 {
			t.Log = logMessage(lines[len(lines)-1])
		}
		return nil
	})
}

// AutoSyncLines are the lines of a controller log that say what its
// auto-sync decided for the Application name.
func AutoSyncLines(log, name string) []string {
	// the controller names it application=NAME (3.x, with
	// app-qualified-name=argocd/NAME) or application=argocd/NAME; in JSON
	// (v3.6.1, run 20261128-105941) "application":"NAME"
	of := regexp.MustCompile(`(^|[\s,{])"?(application|app-qualified-name)"?[=:]"?(` + argocd.Namespace + `/)?` + regexp.QuoteMeta(name) + `"?([\s,}]|$)`)
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if !of.MatchString(l) {
			continue
		}
		for _, s := range []string{"auto-sync", "Already attempted sync", "Initiated automated sync"} {
			if strings.Contains(l, s) {
				out = append(out, strings.TrimSpace(l))
				break
			}
		}
	}
	return out
}

// logMessage is a log line as the verdict quotes it: a JSON line's time
// and message, any other line as it is.
func logMessage(line string) string {
	var l struct{ Time, Msg string }
	if json.Unmarshal([]byte(line), &l) != nil || l.Msg == "" {
		return line
	}
	return l.Time + " " + strconv.Quote(l.Msg)
}

// withTrial is the source with the marker (its data naming the trial's
// commit) and the slow PreSync hook.
func (k *cell) withTrial(annotated bool, on catalog.Release, commit string) fixture.Files {
	withMarker := k.withMarker(annotated, "trial "+commit+" on "+on.String())
	return func(ctx context.Context) (map[string]string, error) {
		files, err := withMarker(ctx)
		if err != nil {
			return nil, err
		}
		src := k.app.Source
		src.Files = files
		return src.WithObject(SlowHook+".yaml", slowHook(k.markerNamespace(), on))
	}
}

// slowHook is the trials' PreSync hook: a Job that sleeps HookRuns in
// ArgoCD's own image (on the node already), deleted once it succeeded.
func slowHook(namespace string, on catalog.Release) string {
	return fmt.Sprintf(`apiVersion: batch/v1
kind: Job
metadata:
  name: %s
  namespace: %s
  labels:
    app.kubernetes.io/part-of: gitops-conformance
  annotations:
    argocd.argoproj.io/hook: PreSync
    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation,HookSucceeded
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: sleep
          image: %s
          imagePullPolicy: IfNotPresent
          command: ["sleep", "%d"]
`, SlowHook, namespace, on.Image(), int(HookRuns.Seconds()))
}
