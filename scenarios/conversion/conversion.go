package conversion

import (
	"time"

	synccommon "github.com/argoproj/argo-cd/gitops-engine/v3/pkg/sync/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/step"
)

const (
	// Minimal is the outage on the suite's own CRD (fixtures/charts/conversion-webhook).
	Minimal = matrix.Minimal
	// Exclusions is the mitigation ArgoCD documents: the CRD's group in
	// argocd-cm's resource.exclusions, so its cluster cache never lists it.
	Exclusions = "exclusions"

	chart      = "conversion-webhook"
	group      = "conversion.conformance.gitops.io"
	kind       = "Gadget"
	operatorNS = "gitops-conformance-gadgets"

	// Window is how long the other teams' Applications are watched for the
	// whole-cluster symptom once ArgoCD restarted: its controller's cluster
	// cache is built again at its first look at an Application, and an
	// Application compared shortly before the restart may wait for its next
	// reconciliation (timeout.reconciliation, 180 s by default, and its
	// jitter): on v3.6.1 one team's Application was not compared again
	// within 3 minutes of the restart (run 20261202-115934).
	Window = 6 * time.Minute
	// quiet is how long the Applications are watched after the outage began
	// and before any restart: what a running controller makes of it.
	quiet = time.Minute
)

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = []string{Minimal, Exclusions}

// teams are the Applications of other teams on the cluster: a ConfigMap each,
// nothing to do with the CRD.
var teams = []string{"team-a", "team-b"}

var (
	controller = env.StatefulSet(env.ArgoCDNamespace, "argocd-application-controller")
	crd        = env.CRD("gadgets." + group)
)

// Feature is the scenario for one cell.
func Feature(c matrix.Cell) step.Scenario {
	s := step.New(c.Report().ID()).Add(env.WatchLog(controller))
	if c.Variant.Name == Exclusions {
		s.Add(env.ExcludeResources(group, kind))
	}
	for _, t := range teams {
		s.Add(env.ApplyNamespace(namespace(t)), env.PushRepo(t, team(t, "1")),
			env.CreateApp(fixture.Application(map[string]any{"name": t, "namespace": namespace(t)})), env.Sync(t))
	}
	s.Add(assert.Await(assert.Intervals.Install, assert.All(appsAre(synced)...)))
	for _, t := range teams {
		s.Add(env.Watch(env.Application(t)))
	}
	// the outage: the operator's CRD, its webhook's backend gone, one object stored at v1
	s.Add(env.ApplyNamespace(operatorNS),
		env.ApplyFiles("CRD gadgets."+group+" and its webhook's Service without endpoints", fixture.Chart(chart, map[string]any{"part": "crd"})),
		assert.Await(assert.Intervals.Sync, check.JSONPathMatches(crd, "{.status.conditions[?(@.type==\"Established\")].status}", "True")),
		env.ApplyFiles("Gadget stored-at-v1 (stored at v1)", fixture.Chart(chart, map[string]any{"part": "object"})),
		env.Watch(crd),
		env.ObserveWithin("before any restart: an Application of another team with a ComparisonError", quiet, assert.Any(appsAre(blinded)...)),
		env.Snapshot("before-restart"),
		env.RestartArgoCD())
	if c.Variant.Name == Exclusions {
		s.Add(assert.Resolved(Window, assert.Intervals.HoldShort,
			assert.Named("after ArgoCD's restart, every other team's Application Synced and Healthy, with no ComparisonError", assert.All(appsAre(synced)...))))
	} else {
		s.Add(assert.Occurs(Window,
			assert.Named("after ArgoCD's restart, every other team's Application blinded: a ComparisonError that the cluster's cache failed to sync", assert.All(appsAre(blinded)...))))
	}
	s.Add(env.Snapshot("at-verdict"))
	for _, t := range teams {
		s.Add(env.See(check.SyncStatusIs(t, v1alpha1.SyncStatusCodeUnknown)), env.See(check.HealthIs(t, "Healthy")))
	}
	// does a sync of an unrelated Application still go through? its change
	// in git, a sync, and the ConfigMap read
	t := teams[0]
	return s.Add(env.PushRepo(t, team(t, "2")).As("push revision 2 of repository "+t), env.Sync(t).As("sync application "+t+" at revision 2"),
		env.ObserveWithin("a sync of application "+t+" still applies its change (ConfigMap revision 2)", assert.Intervals.Sync,
			check.JSONPathIs(env.ConfigMap(namespace(t), t), "{.data.revision}", "2")),
		env.See(check.OperationPhaseIs(t, synccommon.OperationSucceeded))).Scenario()
}

// namespace is a team's destination.
func namespace(team string) string { return "gitops-conformance-" + team }

// team is a team's repository at a revision: a ConfigMap.
func team(name, revision string) fixture.Files {
	return fixture.Chart(chart, map[string]any{"part": "team", "name": name, "namespace": namespace(name), "revision": revision})
}

// synced: the Application compared and healthy, no ComparisonError.
func synced(name string) assert.Check {
	return assert.All(check.SyncStatusIs(name, v1alpha1.SyncStatusCodeSynced), check.HealthIs(name, "Healthy"),
		assert.Not(blinded(name)))
}

// blinded: the Application's ComparisonError says the controller could not
// build its cluster cache (gitops-engine pkg/cache/cluster.go sync: "failed
// to sync cluster"), the whole-cluster symptom.
func blinded(name string) assert.Check {
	return check.JSONPathMatches(env.Application(name), `{.status.conditions[?(@.type=="ComparisonError")].message}`, "failed to sync cluster")
}

// appsAre is check for every team's Application.
func appsAre(check func(string) assert.Check) []assert.Check {
	var out []assert.Check
	for _, t := range teams {
		out = append(out, check(t))
	}
	return out
}
