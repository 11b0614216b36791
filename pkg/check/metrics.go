package check

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	kindcluster "github.com/gitops-conformance/suite/internal/cluster"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/metricsserver"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// metricsAPI is the APIService metrics-server registers.
var metricsAPI = lifecycle.Object{Kind: "apiservices.apiregistration.k8s.io", APIKind: "APIService", Name: metricsserver.APIService}

// MetricsServed holds when the metrics API answers `kubectl get --raw
// /apis/metrics.k8s.io/v1beta1/nodes` with a node's usage: what `kubectl
// top nodes` and the HorizontalPodAutoscaler controller read. Until then
// what it saw says why, as the cluster says it: the API server's answer,
// the APIService's Available condition, the metrics-server Pods' states.
func MetricsServed() assert.Check {
	path := metricsserver.NodesPath
	return describe(metricsAPI, "serving node metrics (GET "+path+")", assert.Scripted(func(ctx context.Context) (bool, string, error) {
		r := lifecycle.From(ctx)
		out, err := r.Kube.GetRaw(ctx, path)
		if err == nil {
			if n := nodesWithUsage(out); n > 0 {
				return true, fmt.Sprintf("GET %s: %d node(s) with usage", path, n), nil
			}
		}
		answer := "no node's usage yet"
		if err != nil {
			answer = shell.LastLine(err.Error())
		}
		seen := []string{"GET " + path + ": " + answer, apiServiceAvailable(ctx)}
		if pods := metricsPods(ctx); pods != "" {
			seen = append(seen, pods)
		}
		return false, strings.Join(seen, "; "), nil
	}, static(repro.RawAnswers(path, `"usage"`))))
}

// nodesWithUsage counts the nodes a NodeMetricsList gives usage for.
func nodesWithUsage(body []byte) int {
	var list struct {
		Items []struct {
			Usage map[string]string `json:"usage"`
		} `json:"items"`
	}
	if json.Unmarshal(body, &list) != nil {
		return 0
	}
	n := 0
	for _, i := range list.Items {
		if len(i.Usage) > 0 {
			n++
		}
	}
	return n
}

// apiServiceAvailable is the metrics APIService's Available condition as
// the aggregator set it ("Available=False (FailedDiscoveryCheck): ...").
func apiServiceAvailable(ctx context.Context) string {
	o, err := lifecycle.Get(ctx, metricsAPI.Kind, "", metricsAPI.Name)
	switch {
	case lifecycle.NotFound(err):
		return "apiservice " + metricsAPI.Name + " not found"
	case err != nil:
		return "apiservice " + metricsAPI.Name + ": could not tell: " + shell.LastLine(err.Error())
	}
	for _, c := range conditions(o.Object) {
		if c.Type == "Available" {
			s := fmt.Sprintf("apiservice %s Available=%s", metricsAPI.Name, c.Status)
			if c.Reason != "" {
				s += " (" + c.Reason + ")"
			}
			if c.Message != "" && c.Status != "True" {
				s += ": " + c.Message
			}
			return s
		}
	}
	return "apiservice " + metricsAPI.Name + ": no Available condition yet"
}

// metricsPods says how metrics-server's Pods are: each one's phase, and
// whether it is ready or what its container waits on
// (ImagePullBackOff, CrashLoopBackOff: a cause quoted).
func metricsPods(ctx context.Context) string {
	list, err := lifecycle.From(ctx).Kube.List(ctx, "pods", metricsserver.Namespace, "k8s-app="+metricsserver.Deployment)
	if err != nil {
		return "pods k8s-app=" + metricsserver.Deployment + ": could not tell: " + shell.LastLine(err.Error())
	}
	if len(list.Items) == 0 {
		return "no pod " + metricsserver.Namespace + "/k8s-app=" + metricsserver.Deployment
	}
	var out []string
	for _, p := range list.Items {
		status := statusOf(p.Object)
		s := "pod " + p.GetName() + " " + status.Phase
		for _, c := range status.Containers {
			switch {
			case c.State.Waiting != nil:
				s += ", waiting: " + c.State.Waiting.Reason
				if c.State.Waiting.Message != "" {
					s += " (" + c.State.Waiting.Message + ")"
				}
			case c.Ready:
				s += ", ready"
			default:
				s += ", not ready"
			}
			if c.RestartCount > 0 {
				s += fmt.Sprintf(", %d restart(s)", c.RestartCount)
			}
		}
		if len(status.Containers) == 0 {
			for _, c := range status.Conditions {
				if c.Type == "PodScheduled" && c.Status != "True" {
					s += ", unscheduled: " + c.Message
				}
			}
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

// condition is a status condition as objects of most kinds have them.
type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// conditions are an object's status.conditions.
func conditions(obj map[string]any) []condition {
	var o struct {
		Status struct {
			Conditions []condition `json:"conditions"`
		} `json:"status"`
	}
	data, _ := json.Marshal(obj)
	_ = json.Unmarshal(data, &o)
	return o.Status.Conditions
}

// ServiceAnswersFromNode holds when an HTTPS GET of path on the Service's
// ClusterIP and port, made from the cluster's node (where the API server
// runs, on the host's network), is answered 200: kube-proxy's rule for the
// Service is in place there. The API server's aggregator keeps the
// connection it opened before that rule (run 20261128-112535: metrics-server
// ready, its APIService FailedDiscoveryCheck 404 for the whole wait), so its
// APIService waits for this.
func ServiceAnswersFromNode(namespace, name string, port int, path string) assert.Check {
	svc := lifecycle.Service(namespace, name)
	return describe(svc, fmt.Sprintf("answers GET %s 200 on its ClusterIP from the node", path), assert.Unscripted(func(ctx context.Context) (bool, string, error) {
		r := lifecycle.From(ctx)
		obj, err := r.Kube.Get(ctx, svc.Kind, namespace, name)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		ip, _, _ := unstructured.NestedString(obj.Object, "spec", "clusterIP")
		if ip == "" {
			return false, "no ClusterIP yet", nil
		}
		node := kindcluster.NodeContainer(r.Cluster)
		url := fmt.Sprintf("https://%s:%d%s", ip, port, path)
		code, err := shell.Output(ctx, "docker", "exec", node, "curl", "-sk", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}", url)
		code = strings.TrimSpace(code)
		if err != nil && code == "" {
			code = shell.LastLine(err.Error())
		}
		return code == "200", fmt.Sprintf("GET %s from %s: %s", url, node, code), nil
	}))
}
