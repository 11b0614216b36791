//go:build e2e

package suites

import (
	"testing"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/step"
)

// probeNS holds the cluster check's objects.
const probeNS = "gitops-conformance-probe"

// probe is the cluster check's backend: the etcd image is in every node image
// (kubeadm needs it), offline or online, and serves plain HTTP on /health, so
// it needs no image of its own.
func probe(etcd string) fixture.Files {
	return fixture.Chart("probes", map[string]any{
		"pod": map[string]any{"name": "probe", "namespace": probeNS, "labels": map[string]string{"app": "probe"},
			"container": "etcd", "image": etcd, "port": 2379, "emptyDir": "/data",
			"command": []string{"etcd", "--data-dir=/data", "--listen-client-urls=http://0.0.0.0:2379", "--advertise-client-urls=http://probe:2379"}},
		"service": map[string]any{"name": "probe", "namespace": probeNS, "selector": map[string]string{"app": "probe"}, "port": 2379},
	})
}

// TestCluster checks the cluster a run stands on: a Pod runs, and a ClusterIP
// Service answers the API server (the path admission webhooks take).
func TestCluster(t *testing.T) {
	etcd := "registry.k8s.io/etcd:" + run.Run.Kubernetes.Etcd[1:] + "-0"
	runCheck(t, "cluster", step.New("cluster").Add(
		env.ApplyNamespace(probeNS),
		assert.Await(assert.Intervals.Rollout, check.Exists(env.ServiceAccount(probeNS, "default"))),
		env.ApplyFiles("probe pod and service", probe(etcd)),
		assert.Await(assert.Intervals.Rollout, check.JSONPathIs(env.Pod(probeNS, "probe"), "{.status.phase}", "Running")),
		assert.Await(assert.Intervals.Rollout, check.ServiceAnswers(env.Service(probeNS, "probe"), "2379", "/health", `"health":"true"`))).Scenario())
}
