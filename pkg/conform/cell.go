package conform

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"sigs.k8s.io/e2e-framework/pkg/envconf"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Sentinel names the ConfigMap and the Secret namespace-kept puts into the
// namespace before the install: a team's things the chart must not take.
const Sentinel = "gitops-conformance-sentinel"

// cell is one check of the chart: the spec, and what the cell learns of the
// chart as it installs it.
type cell struct {
	appcell.Cell // Recorded: the chart's webhooks as installed (recordWebhooks)
	spec         *Spec
	app          string
	chart        fixture.Files // the chart's files as pushed to the git server
	// unserved are the kinds (kind.group) of the chart's hooks the cluster
	// did not serve before the sync (hook-kind-missing)
	unserved []string
}

// Feature is a cell of make conform: the chart installed through ArgoCD
// from the in-cluster git server into the namespace made beforehand
// (CreateNamespace=false), then the cell's check.
func (s *Spec) Feature(c matrix.Cell) step.Scenario {
	k := &cell{spec: s, app: s.Release, chart: fixture.OfflinePullPolicy(func(context.Context) (map[string]string, error) { return s.Chart.Files, nil })}
	k.Rendered, k.Namespaces = s.Rendered.Webhooks, k.chartNamespaces
	steps := step.New(c.Report().ID())
	chk, ok := lookup(c.Variant.Name)
	if !ok { // Plan makes no such cell; it ends ERROR saying so
		return steps.Add(env.Fail("check "+c.Variant.Name, fmt.Errorf("no check %q (valid: %s)", c.Variant.Name, strings.Join(Names(), ", ")))).Scenario()
	}
	what := fmt.Sprintf("chart %s %s", s.Chart.Name, s.Chart.Version)
	rendered := func(context.Context) (map[string]string, error) {
		return map[string]string{"rendered.yaml": s.Rendered.Manifest()}, nil
	}
	steps.Add(env.Provided(what, k.chart), k.describe(),
		// what an earlier cell or run left of the chart goes at the start; at
		// the end, registered first, it goes last
		env.RemoveRendered(what, rendered), env.RemoveRenderedAtEnd(what, rendered),
		k.images())
	steps.Add(appcell.Namespace{Name: s.Namespace, Labels: s.Labels}.Steps()...)
	if chk.before != nil {
		steps.Add(chk.before(k)...)
	}
	if len(s.CmdParams) > 0 {
		steps.Add(env.SetArgoCDCmdParams(s.CmdParams))
	}
	steps.Add(k.forgetWebhooksAtEnd(), env.ReleaseCRDsAtEnd("the chart's custom resources", s.Rendered.CRDs, s.Namespace),
		env.Watch(env.Namespace(s.Namespace)), k.SeeBefore("the webhook configurations before the install"),
		env.PushRepo(k.app, k.chart), env.CreateApp(k.application(chk.SelfHeal)))
	// a hook held by ArgoCD's finalizer also holds the Application's deletion:
	// registered after it, these run before it
	steps.Add(appcell.HookFinalizersAtEnd(s.Rendered.Hooks())...)
	// a sync still running (a hook that cannot run) holds the deletion
	steps.Add(env.TerminateOperationAtEnd(k.app))
	if chk.Name != "deletion-hooks" && len(s.Rendered.DeletionHooks()) > 0 {
		// the cleanup's deletion is not the check's: a deletion hook that
		// cannot run (its image offline) would hold it (run 20261129-075841,
		// Kube-OVN v1.16.2's post-delete hook)
		steps.Add(env.ReleaseDeletionHooksAtEnd(k.app))
	}
	if !chk.SelfHeal {
		steps.Add(env.Sync(k.app, s.SyncOptions...))
	}
	return steps.Add(chk.steps(k)...).Scenario()
}

// describe records the chart, how it renders and the images it runs.
func (k *cell) describe() step.Step {
	return appcell.Reads("the chart as rendered", func(ctx context.Context) error {
		s := k.spec
		r := s.Rendered
		lifecycle.Note(ctx, "source: chart %s %s (%d files, content sha256 %s) from %s", s.Chart.Name, s.Chart.Version, len(s.Chart.Files), s.Chart.Digest, s.Chart.Source)
		webhooks, err := r.Webhooks()
		if err != nil {
			return err
		}
		lifecycle.Note(ctx, "chart %s %s as release %s in %s: %d resources, %d workload(s), %d webhook(s) in its configurations, %d hook(s), %d CRD(s); images: %s",
			s.Chart.Name, s.Chart.Version, s.Release, s.Namespace, len(r.Resources()), len(r.Workloads()), len(webhooks), len(r.Hooks()), len(r.CRDs()), text.OrNone(strings.Join(r.Images(), ", ")))
		lifecycle.CellFrom(ctx).WriteEvidence("rendered.yaml", r.Manifest())
		return nil
	})
}

// images gives the node the images named (IMAGES, IMAGE_RECIPES) and says
// which of those the chart runs neither was given nor the node holds.
func (k *cell) images() step.Step {
	steps := []step.Step{env.LocalImages("IMAGES", k.spec.Images)}
	for _, r := range k.spec.Recipes {
		steps = append(steps, env.ComponentImages(r[0], r[1]))
	}
	steps = append(steps, env.Observe("the images the chart runs that the node lacks", k.missingImages()))
	return env.InOrder("the images the chart runs", steps...)
}

// missingImages holds when the node has every image the chart runs; offline
// a missing one is also a note of the run (its Pods cannot start).
func (k *cell) missingImages() assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		have, err := check.NodeImages(ctx)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		r := lifecycle.From(ctx)
		missing := check.MissingImages(k.spec.Rendered.Images(), append(have, r.Loaded()...))
		if len(missing) == 0 {
			return true, "none: the node holds every image the chart runs", nil
		}
		if r.Mode != images.Offline {
			return false, fmt.Sprintf("online, pulled by the node: %s", strings.Join(missing, " ")), nil
		}
		note := fmt.Sprintf("chart %s %s: images its workloads run, neither loaded (IMAGES) nor in the node: %s; offline their Pods cannot start",
			k.spec.Chart.Name, k.spec.Chart.Version, strings.Join(missing, " "))
		if !slices.Contains(r.Notes, note) {
			r.Notes = append(r.Notes, note)
		}
		return false, "missing (offline, nothing pulls them): " + strings.Join(missing, " "), nil
	}
}

// sentinels are the team's things in the namespace: a ConfigMap and a Secret.
func (k *cell) sentinels() fixture.Files {
	return fixture.Chart("probes", map[string]any{
		"configMap": map[string]any{"name": Sentinel, "namespace": k.spec.Namespace, "data": map[string]string{"owner": "the team, not the chart"}},
		"secret":    map[string]any{"name": Sentinel, "namespace": k.spec.Namespace, "data": map[string]string{"owner": "the team, not the chart"}}})
}

// extra are the manifests of EXTRA.
func (k *cell) extra() fixture.Files {
	return func(context.Context) (map[string]string, error) {
		return map[string]string{"extra.yaml": k.spec.Extra}, nil
	}
}

// application installs the chart from the fixture repository as a Helm
// source with the values file, into the namespace made beforehand: no
// CreateNamespace, manual syncs, a retry (a CR applied in its CRD's wave can
// fail a first attempt), IGNORE_DIFFERENCES. With selfHeal it syncs itself
// (automated, selfHeal, ServerSideApply=true).
func (k *cell) application(selfHeal bool) fixture.App {
	h := map[string]any{"releaseName": k.spec.Release}
	if k.spec.Values != "" {
		h["values"] = k.spec.Values
	}
	values := map[string]any{"name": k.app, "namespace": k.spec.Namespace, "helm": h,
		"syncOptions": k.spec.SyncOptions, "retryLimit": 2}
	if len(k.spec.IgnoreDifferences) > 0 {
		values["ignoreDifferences"] = k.spec.IgnoreDifferences
	}
	if selfHeal {
		values["automated"] = map[string]any{"selfHeal": true}
		if !slices.ContainsFunc(k.spec.SyncOptions, func(o string) bool { return strings.HasPrefix(o, "ServerSideApply=") }) {
			values["syncOptions"] = append(slices.Clone(k.spec.SyncOptions), "ServerSideApply=true")
		}
	}
	return fixture.Application(values)
}

// synced waits for the install sync to succeed, records the chart's
// webhooks as installed and applies EXTRA.
func (k *cell) synced() []step.Step {
	steps := []step.Step{assert.That("application "+k.app+" install sync Succeeded", assert.Intervals.Install,
		check.OperationPhaseIs(k.app, synccommon.OperationSucceeded)), k.recordWebhooks()}
	if k.spec.Extra != "" {
		steps = append(steps, env.ApplyFiles("the extra manifests (EXTRA)", k.extra()))
	}
	return steps
}

// chartNamespaces are the namespaces the chart's objects live in.
func (k *cell) chartNamespaces() []string {
	ns := []string{k.spec.Namespace}
	for _, o := range k.spec.Rendered.Objects {
		if n := o.GetNamespace(); n != "" && !slices.Contains(ns, n) {
			ns = append(ns, n)
		}
	}
	return ns
}

// recordWebhooks reads the chart's webhooks as installed (ChartWebhooks) and
// adds their configurations to the evidence.
func (k *cell) recordWebhooks() step.Step {
	return appcell.Reads("the chart's webhook configurations as installed", func(ctx context.Context) error {
		live, err := check.LiveWebhooks(ctx)
		if err != nil {
			return err
		}
		rendered, err := k.spec.Rendered.Webhooks()
		if err != nil {
			return err
		}
		k.Recorded = appcell.ChartWebhooks(live, rendered, k.Before, k.chartNamespaces())
		var names, configs []string
		c := lifecycle.CellFrom(ctx)
		for _, w := range k.Recorded {
			names = append(names, w.Name)
			if !slices.Contains(configs, w.Config+" "+w.ConfigName) {
				configs = append(configs, w.Config+" "+w.ConfigName)
				c.Watch(w.Config, "", w.ConfigName)
			}
		}
		lifecycle.Note(ctx, "the chart's webhook configurations as installed: %s; webhooks: %s", text.OrNone(strings.Join(configs, ", ")), text.OrNone(strings.Join(names, ", ")))
		return nil
	})
}

func (k *cell) chartWebhooks() []check.Webhook { return k.Recorded }

// forgetWebhooksAtEnd deletes, when the cell ends, the chart's webhook
// configurations still there (rendered, or registered at run time).
func (k *cell) forgetWebhooksAtEnd() step.Step {
	return k.ForgetWebhooksAtEnd("the chart's webhook configurations left")
}

// workloads are the chart's workloads that run something (replicas > 0).
func (k *cell) workloads() []check.Workload {
	var out []check.Workload
	for _, w := range k.spec.Rendered.Workloads() {
		if w.Replicas != 0 {
			out = append(out, w)
		}
	}
	return out
}

// allAvailable holds when every workload of the chart is available. A
// workload whose Pods a webhook of the chart keeps rejecting for
// blockedCertain ends the wait at once with that cause (UnlessBlocked): it will not come
// up by itself (make conform's self-blocking-webhook check is the class).
func (k *cell) allAvailable() assert.Check {
	var all []assert.Check
	for _, w := range k.workloads() {
		all = append(all, check.Available(w))
	}
	if len(all) == 0 {
		return assert.Named("the chart's workloads available", assert.Constant(true, "the chart has no workload"))
	}
	return assert.Named("the chart's workloads available", check.UnlessBlocked(assert.All(all...), k.anyBlocked(), "a webhook of the chart blocks the chart's own Pods", blockedCertain, time.Now))
}

// blockedCertain is how long a workload's Pods rejected by a webhook of the
// chart make that the cause of its not coming up: the controller's retries
// back off to well under it, and a webhook whose own Pods start in time
// admits them within it.
const blockedCertain = time.Minute

// anyBlocked holds when a workload of the chart is blocked by one of the
// chart's webhooks as installed.
func (k *cell) anyBlocked() assert.Check {
	return assert.Named("a workload of the chart blocked by a webhook of the chart", assert.Later(func(context.Context) (assert.Check, error) {
		var names []string
		for _, w := range k.Recorded {
			names = append(names, w.Name)
		}
		if len(names) == 0 {
			return assert.Constant(false, "the chart has no admission webhook"), nil
		}
		var any []assert.Check
		for _, w := range k.workloads() {
			any = append(any, check.Blocked(w, names))
		}
		return assert.Any(any...), nil
	}))
}

// served are the chart's Services its webhooks call, and the Deployments
// of the chart behind them.
func (k *cell) served() (services []appcell.Service, deployments []check.Workload) {
	for _, w := range k.Recorded {
		s := w.ClientConfig.Service
		if s == nil {
			continue
		}
		svc, ok := k.spec.Rendered.Service(s.Namespace, s.Name)
		if !ok || slices.ContainsFunc(services, func(o appcell.Service) bool { return o.Namespace == svc.Namespace && o.Name == svc.Name }) {
			continue
		}
		services = append(services, svc)
		for _, b := range k.spec.Rendered.Backing(svc) {
			if b.Kind == "Deployment" && b.Replicas != 0 && !slices.ContainsFunc(deployments, func(o check.Workload) bool { return o.Ref() == b.Ref() }) {
				deployments = append(deployments, b)
			}
		}
	}
	return services, deployments
}

// restart replaces the Deployments serving the chart's webhooks while none
// runs, as after a restart with one replica: scaled to 0, no serving
// endpoint left (a terminating Pod still serves), scaled back.
func (k *cell) restart() step.Step {
	const what = "replace the Deployments serving the chart's webhooks"
	return step.Act(what, func(ctx context.Context, t *testing.T, cfg *envconf.Config) context.Context {
		services, deployments := k.served() // known once the chart's webhooks are recorded
		if len(deployments) == 0 {
			return assert.Step("no Deployment of the chart serves its webhooks: nothing to replace", func(context.Context) error { return nil })(ctx, t, cfg)
		}
		var steps []step.Step
		for _, d := range deployments {
			steps = append(steps, env.Scale(env.Deployment(d.Namespace, d.Name), 0))
		}
		// none runs: no serving endpoint, and the Deployment's status says
		// so too (else the scale back could read its status from before)
		var none []assert.Check
		for _, s := range services {
			none = append(none, check.ServingEndpoints(s.Object(), 0))
		}
		for _, d := range deployments {
			none = append(none, check.JSONPathIs(env.Deployment(d.Namespace, d.Name), "{.status.replicas}", ""))
		}
		steps = append(steps, assert.That("no Pod of the Deployments left, no serving endpoint", assert.Intervals.Rollout, assert.All(none...)))
		for _, d := range deployments {
			steps = append(steps, env.Scale(env.Deployment(d.Namespace, d.Name), int(d.Replicas)))
		}
		return env.InOrder(what, steps...).Func()(ctx, t, cfg)
	})
}

// configsRemain says which of the chart's webhook configurations are there,
// with their ownerReferences.
func (k *cell) configsRemain() assert.Check {
	return check.Remains(func() []lifecycle.Object {
		var out []lifecycle.Object
		for _, w := range k.Recorded {
			if r := w.ConfigObject(); !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
		return out
	})
}

// servicesGone holds when the chart's Services its webhooks call are gone.
func (k *cell) servicesGone() assert.Check {
	return assert.Named("the services the chart's webhooks call gone", assert.Later(func(context.Context) (assert.Check, error) {
		services, _ := k.served()
		var gone []assert.Check
		for _, s := range services {
			gone = append(gone, check.Missing(s.Object()))
		}
		return assert.All(gone...), nil
	}))
}

// servingPodsGone holds when no Pod the chart's webhook Services selected is left.
func (k *cell) servingPodsGone() assert.Check {
	return assert.Named("the Pods serving the chart's webhooks gone", assert.Later(func(context.Context) (assert.Check, error) {
		services, _ := k.served()
		var gone []assert.Check
		for _, s := range services {
			if len(s.Selector) > 0 {
				gone = append(gone, check.NoneLeft(env.Selection{Kinds: "pods", Namespace: s.Namespace, Labels: check.PodSelector(s.Selector)}))
			}
		}
		return assert.All(gone...), nil
	}))
}

// rejectsProbe holds when a webhook of a configuration left behind, failing
// closed, rejects an object it matches (server-side dry run: nothing is
// created): the probe is made from its rules and selectors (Probe).
func (k *cell) rejectsProbe() assert.Check {
	return assert.Later(func(ctx context.Context) (assert.Check, error) {
		// as they are now: a controller fills in its configurations' rules
		live, err := check.LiveWebhooks(ctx)
		if err != nil {
			return nil, assert.Unknown(err)
		}
		ofChart := map[string]bool{}
		for _, w := range k.Recorded {
			ofChart[w.ConfigRef()] = true
		}
		var rejected []assert.Check
		var why []string
		for _, w := range live {
			if !ofChart[w.ConfigRef()] {
				continue
			}
			if cmp.Or(w.FailurePolicy, "Fail") != "Fail" {
				why = append(why, w.Name+": failurePolicy "+w.FailurePolicy)
				continue
			}
			probe, err := check.Probe(ctx, w)
			if err != nil {
				why = append(why, w.Name+": "+err.Error())
				continue
			}
			rejected = append(rejected, check.Rejected(probe, `webhook "`+w.Name+`"`))
		}
		if len(rejected) == 0 {
			if len(why) == 0 {
				return assert.Constant(false, "no configuration of the chart is left"), nil
			}
			return assert.Constant(false, "no probe: "+text.OrNone(strings.Join(why, ", "))), nil
		}
		return assert.Any(rejected...), nil
	})
}
