package env

import (
	"context"
	"time"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/metricsserver"
	"github.com/gitops-conformance/suite/pkg/repro"
	"github.com/gitops-conformance/suite/pkg/step"
)

// MetricsServer gives the cluster the metrics-server s names (METRICS), as
// every managed Kubernetes has one: its image (offline built from its
// module zip by images/metrics-server/build.sh, online pulled by the node),
// its release manifests with --kubelet-insecure-tls (metricsserver.Manifests)
// applied, and a wait, bounded, until the metrics API serves a node's
// usage, quoting what the cluster said if it never does. Its APIService
// is applied once its Deployment is available (metricsserver.Rendered.Parts
// says why). It is the cluster's, as on a managed cluster: applied again by
// each cell (no change after the first), never deleted by one; the cluster
// goes with the run. With METRICS=none it notes that the cluster has none (a
// HorizontalPodAutoscaler then cannot read its metrics), or that the
// metrics API answers all the same (a kept cluster's metrics-server).
func MetricsServer(s metricsserver.Setting) step.Step {
	if !s.On() {
		return lookInRun("the cluster's metrics-server: none (METRICS=none)", func(ctx context.Context) error {
			if _, err := lifecycle.From(ctx).Kube.GetRaw(ctx, metricsserver.NodesPath); err == nil {
				lifecycle.Note(ctx, "cluster: METRICS=none, but the metrics API (%s) answers: a metrics-server this run did not install (a kept cluster's: KEEP=1)", metricsserver.NodesPath)
				return nil
			}
			lifecycle.Note(ctx, "cluster: no metrics-server (METRICS=none): the metrics API (%s) is not served, so HorizontalPodAutoscalers cannot read resource metrics", metricsserver.NodesPath)
			return nil
		})
	}
	rendered := &metricsserver.Rendered{}
	deployment := check.Workload{Kind: "Deployment", Namespace: metricsserver.Namespace, Name: metricsserver.Deployment, Replicas: 1}
	return InOrder("the cluster's "+s.String(), ComponentImages(metricsserver.Component, s.Version), applyMetricsServer(s.Version, rendered),
		assert.That("metrics-server "+s.Version+"'s deployment available, before its APIService (metricsserver.Rendered.Parts)", assert.Intervals.Rollout, check.Available(deployment)),
		assert.That("metrics-server "+s.Version+"'s Service reached from the node, before its APIService", assert.Intervals.Rollout,
			check.ServiceAnswersFromNode(metricsserver.Namespace, metricsserver.Service, 443, "/livez")),
		applyAPIService(s.Version, rendered), metricsServed(s.Version))
}

// applyMetricsServer applies version's manifests but its APIService
// server-side, noting where they came from, and keeps them in into; they
// stay (MetricsServer).
func applyMetricsServer(version string, into *metricsserver.Rendered) step.Step {
	what := metricsserver.Component + " " + version
	return act("apply "+what+" (its APIService after)", func(ctx context.Context) error {
		r := lifecycle.From(ctx)
		m, from, err := metricsserver.Manifests(ctx, r.Catalog, version)
		if err != nil {
			return err
		}
		*into = m
		rest, _ := m.Parts()
		if !applyStep(ctx, what, rest) {
			return nil
		}
		c := lifecycle.CellFrom(ctx)
		c.WriteEvidence("metrics-server.yaml", m.Manifest)
		c.Step("apply %s but its APIService: %d bytes (metrics-server.yaml), image %s; kept for the run's later cells", what, len(rest), m.Image)
		lifecycle.Note(ctx, "cluster: %s, image %s, manifests from %s", what, m.Image, from)
		return r.Kubectl.Apply(ctx, rest)
	})
}

// applyAPIService applies the APIService of the manifests applyMetricsServer
// read, once metrics-server's Deployment is available.
func applyAPIService(version string, from *metricsserver.Rendered) step.Step {
	what := metricsserver.Component + " " + version + "'s APIService " + metricsserver.APIService
	return act("apply "+what, func(ctx context.Context) error {
		_, api := from.Parts()
		if !applyStep(ctx, what, api) {
			return nil
		}
		lifecycle.CellFrom(ctx).Step("apply %s", what)
		return lifecycle.From(ctx).Kubectl.Apply(ctx, api)
	})
}

// metricsServed waits, up to Intervals.Rollout, for the metrics API to
// serve a node's usage; not served is an ERROR of the cell, quoting what
// the API server, the APIService and metrics-server's Pods said last.
func metricsServed(version string) step.Step {
	what := metricsserver.Component + " " + version + " serving node metrics"
	served := check.MetricsServed()
	return look("wait "+what, func(ctx context.Context) error {
		if !repro.Record(ctx, repro.Step{Kind: repro.Wait, What: what, Check: assert.ScriptOf(ctx, served), Timeout: assert.Intervals.Rollout}) {
			return nil
		}
		start := time.Now()
		err := assert.Eventually(ctx, what, assert.Intervals.Rollout, served)
		_, seen, _ := served(ctx)
		if err != nil {
			repro.Ended(ctx, seen, err.Error())
			return err
		}
		repro.Ended(ctx, seen, "held")
		lifecycle.Note(ctx, "cluster: %s after %s (%s)", what, time.Since(start).Round(time.Second), seen)
		return nil
	})
}
