//go:build e2e

package suites

import (
	"fmt"
	"testing"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/env"
)

// probeNS holds the cluster check's objects.
const probeNS = "gitops-conformance-probe"

// The etcd image is in every node image (kubeadm needs it), offline or online,
// and serves plain HTTP on /health: a backend that needs no image of its own.
const probeNamespace = `apiVersion: v1
kind: Namespace
metadata: {name: %s}
`

const probe = `apiVersion: v1
kind: Pod
metadata: {name: probe, namespace: %[1]s, labels: {app: probe}}
spec:
  containers:
  - name: etcd
    image: %[2]s
    command: [etcd, --data-dir=/data, --listen-client-urls=http://0.0.0.0:2379, --advertise-client-urls=http://probe:2379]
    ports: [{containerPort: 2379}]
    volumeMounts: [{name: data, mountPath: /data}]
  volumes: [{name: data, emptyDir: {}}]
---
apiVersion: v1
kind: Service
metadata: {name: probe, namespace: %[1]s}
spec:
  selector: {app: probe}
  ports: [{port: 2379, targetPort: 2379}]
`

// TestCluster checks the cluster a run stands on: a Pod runs, and a ClusterIP
// Service answers the API server (the path admission webhooks take).
func TestCluster(t *testing.T) {
	etcd := "registry.k8s.io/etcd:" + run.Run.Catalog.Kubernetes.Etcd[1:] + "-0"
	f := features.New("cluster").
		Setup(env.Apply("probe namespace", fmt.Sprintf(probeNamespace, probeNS))).
		Setup(assert.That("serviceaccount "+probeNS+"/default", assert.Intervals.Rollout, check.Exists("serviceaccount", probeNS, "default"))).
		Setup(env.Apply("probe pod and service", fmt.Sprintf(probe, probeNS, etcd))).
		Assess("pod Running", assert.That("pod "+probeNS+"/probe Running", assert.Intervals.Rollout,
			check.JSONPathIs("pod", probeNS, "probe", "{.status.phase}", "Running"))).
		Assess("service answers the API server", assert.That("service "+probeNS+"/probe answers", assert.Intervals.Rollout,
			check.ServiceAnswers(probeNS, "probe", "2379", "/health", `"health":"true"`))).
		Feature()
	runCheck(t, "cluster", f)
}
