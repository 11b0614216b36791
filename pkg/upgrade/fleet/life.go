package fleet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/step"
	"github.com/gitops-conformance/suite/pkg/upgrade/cell"
	"github.com/gitops-conformance/suite/pkg/upgrade/spec"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appstate"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/upgrade/verdict"
)

// lived is what a sync asked of one Application showed: the state once its
// operation ended (or the wait did) and its health settled.
type lived struct {
	state appstate.State
	// waited says what the sync was still doing when the wait ended ("" when it ended)
	waited string
	// unread says why the sync could not be asked or read
	unread string
}

// syncWithin and settleHealthWithin bound a sync asked of one Application
// and its health's settling afterwards (as a cell's syncs are bounded).
var (
	syncWithin         = assert.Intervals.Install
	settleHealthWithin = assert.Intervals.Rollout
)

// syncEach asks a sync of each Application names gives, as a user does
// (`argocd app sync`, the Application's own sync options and retry), four at
// a time, and reads each once its operation ended and its health settled
// (hooks ran). On FROM it is the baseline of TO's; dst holds every one.
func (f *fleet) syncEach(on string, names func(context.Context) ([]string, error)) step.Step {
	return appcell.Reads("a sync asked of each Application on "+on+" (its hooks run), its state read once it ended", func(ctx context.Context) error {
		todo, err := names(ctx)
		if err != nil {
			return assert.Unknown(err)
		}
		start := time.Now()
		out := inParallel(todo, func(n string) string { return n }, func(n string) *lived { return syncOne(ctx, n, on) })
		for n, l := range out {
			f.app(n).lived[on] = l
		}
		c := lifecycle.CellFrom(ctx)
		failed := 0
		for _, n := range slices.Sorted(maps.Keys(out)) {
			l := out[n]
			if l.unread != "" || l.waited != "" || verdict.Troubled(l.state) {
				failed++
			}
			f.fleetEvidence.Lock()
			c.WriteEvidence("apps/"+n+"/synced-"+on+".txt", strings.Join(l.state.Lines(), "\n")+"\n"+orUnread(l.unread)+waitedLine(l.waited))
			f.fleetEvidence.Unlock()
		}
		lifecycle.Note(ctx, "on %s: a sync asked of %d Applications in %s (%d with a problem after it)", on, len(out), time.Since(start).Round(time.Second), failed)
		return nil
	})
}

func waitedLine(s string) string {
	if s == "" {
		return ""
	}
	return "the wait ended: " + s + "\n"
}

// syncOne asks one Application's sync and reads what it did.
func syncOne(ctx context.Context, name, on string) *lived {
	app, err := check.App(ctx, name)
	if err != nil {
		return &lived{unread: "the Application before its sync: " + err.Error()}
	}
	var options []string
	if p := app.Spec.SyncPolicy; p != nil {
		options = p.SyncOptions
	}
	asked := time.Now().Truncate(time.Second)
	if err := lifecycle.From(ctx).Apps.Sync(ctx, name, options...); err != nil {
		return &lived{unread: "the sync asked: " + err.Error()}
	}
	l := &lived{}
	ended := func(a *v1alpha1.Application) bool {
		op := a.Status.OperationState
		return a.Operation == nil && op != nil && !op.StartedAt.Time.Before(asked) && op.Phase.Completed()
	}
	settled := func(a *v1alpha1.Application) bool { return a.Status.Health.Status != "Progressing" }
	for _, w := range []struct {
		within     time.Duration
		done       func(*v1alpha1.Application) bool
		what, left string
	}{{syncWithin, ended, "operation ended", "the operation had not ended"}, {settleHealthWithin, settled, "health settled", "its health was still Progressing"}} {
		err := assert.Eventually(ctx, "application "+name+"'s "+w.what, w.within, func(ctx context.Context) (bool, string, error) {
			a, err := check.App(ctx, name)
			if err != nil {
				return false, "", assert.Unknown(err)
			}
			app = a
			return w.done(a), "", nil
		})
		var timeout *assert.TimeoutError
		switch {
		case errors.As(err, &timeout):
			l.waited = fmt.Sprintf("%s after %s", w.left, w.within)
		case err != nil:
			return &lived{unread: "the Application after its sync: " + err.Error()}
		}
		if l.waited != "" {
			break
		}
	}
	l.state = cell.StateOf(ctx, app, on)
	return l
}

// liveNames are the fleet's Applications as ArgoCD holds them now.
func liveNames(ctx context.Context) ([]string, error) {
	list, err := listApps(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range list.Items {
		out = append(out, a.GetName())
	}
	return out, nil
}

// chooseTier fixes, once TO was read, the Applications the lifecycle tier
// takes (f.tier): every one read on TO with LIFECYCLE=all, else those whose
// render tier was not SAFE.
func (f *fleet) chooseTier() step.Step {
	return appcell.Reads("the Applications the lifecycle tier takes ("+f.spec.Lifecycle+")", func(ctx context.Context) error {
		f.tier = nil
		reads := f.readOn(f.to.String())
		for _, n := range slices.Sorted(maps.Keys(reads)) {
			if f.spec.Lifecycle == spec.LifecycleAll {
				f.tier = append(f.tier, n)
				continue
			}
			// the render tier's verdict: nothing synced or deleted on TO yet
			if o, _ := verdict.Grade(f.reading(n)); o != report.Safe {
				f.tier = append(f.tier, n)
			}
		}
		lifecycle.Note(ctx, "the lifecycle tier (%s): %d of %d Applications", f.spec.Lifecycle, len(f.tier), len(reads))
		return nil
	})
}

// deleteFleet deletes the fleet as a team takes it down, the last thing
// the run does: every ApplicationSet (its Applications with it, by their
// owner references), then every other Application with cascade (argocd
// app delete: its resources first; an app-of-apps parent takes its
// children with it); waits for them to go and reads, for each Application
// of the lifecycle tier, whether it went and what of TO's render is left.
func (f *fleet) deleteFleet() step.Step {
	what := "the fleet deleted with cascade on " + f.to.String() + " (ApplicationSets, then Applications)"
	return step.Act(what, func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		ctx = env.InOrder(what, f.deletions()...).Func()(ctx, t, cfg)
		return appcell.Reads("the fleet's deletion", func(ctx context.Context) error {
			return f.readDeletions(ctx)
		}).Func()(ctx, t, cfg)
	})
}

// deletions are the steps that delete the fleet: ApplicationSets first
// (else their controller makes again what is deleted), then the
// Applications APPS made (a child goes with its parent's cascade, a
// generated one with its ApplicationSet).
func (f *fleet) deletions() []step.Step {
	var steps []step.Step
	for _, s := range f.spec.AppSets {
		steps = append(steps, env.Delete(env.Object{Kind: "applicationsets.argoproj.io", Namespace: argocd.Namespace, Name: s.GetName()}))
	}
	reads := f.readOn(f.to.String())
	for _, n := range slices.Sorted(maps.Keys(reads)) {
		if reads[n].by == "APPS" {
			steps = append(steps, env.DeleteApp(n, env.Foreground))
		}
	}
	return steps
}

// readDeletions waits for the fleet's Applications to go and reads each
// one's deletion (the lifecycle tier's).
func (f *fleet) readDeletions(ctx context.Context) error {
	// the deletions held past the wait are what the reads below say held them
	err := assert.Eventually(ctx, "the fleet's Applications gone", assert.Intervals.Rollout, func(ctx context.Context) (bool, string, error) {
		list, err := listApps(ctx)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		return len(list.Items) == 0, fmt.Sprintf("%d Application(s) left", len(list.Items)), nil
	})
	var timeout *assert.TimeoutError
	if err != nil && !errors.As(err, &timeout) {
		return err
	}
	c := lifecycle.CellFrom(ctx)
	held := 0
	for _, n := range f.tier {
		d := f.readDeletion(ctx, n)
		f.app(n).deleted = d
		if !d.Gone {
			held++
		}
		c.WriteEvidence("apps/"+n+"/deletion-"+f.to.String()+".txt", fmt.Sprintf("gone: %v\nheld: %s\nleft: %s\n%s", d.Gone, text.OrNone(d.Held), text.OrNone(d.Left), d.UnreadSaid()))
	}
	lifecycle.Note(ctx, "the fleet's deletion on %s: %d of %d Applications of the lifecycle tier held", f.to, held, len(f.tier))
	return nil
}

// readDeletion reads one Application's deletion (readDeletion), and which
// objects of TO's render are still there.
func (f *fleet) readDeletion(ctx context.Context, name string) *cell.Deletion {
	r, err := f.readOf(name, f.to.String()).rendered()
	var refs []lifecycle.Object
	if r != nil {
		refs = r.Refs()
	}
	d := cell.ReadDeletion(ctx, name, f.to.String(), refs)
	if err != nil {
		d.Unread = append(d.Unread, "TO's render: "+err.Error())
	}
	return &d
}
