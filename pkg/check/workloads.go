package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// RolledOut holds when every Deployment in namespace is Available.
func RolledOut(namespace string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := lifecycle.From(ctx).Kubectl.Run(ctx, "-n", namespace, "get", "deploy", "-o",
			`jsonpath={range .items[*]}{.metadata.name}={.status.availableReplicas}/{.spec.replicas} {end}`)
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		ready := out != ""
		for _, f := range strings.Fields(out) {
			name, counts, _ := strings.Cut(f, "=")
			have, want, _ := strings.Cut(counts, "/")
			if have != want || name == "" {
				ready = false
			}
		}
		return ready, "deployments " + out, nil
	}
}

// EventSeen holds when an event in namespace about an object of kind has
// the reason and a message containing substr.
func EventSeen(namespace, kind, reason, substr string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := lifecycle.From(ctx).Kubectl.Run(ctx, "get", "events", "-n", namespace,
			"--field-selector", "involvedObject.kind="+kind+",reason="+reason,
			"-o", `jsonpath={range .items[*]}{.involvedObject.name}: {.message}{"\n"}{end}`)
		if err != nil {
			return false, "", assert.Unknown(fmt.Errorf("list events in %q: %w", namespace, err))
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines {
			if strings.Contains(l, substr) {
				return true, fmt.Sprintf("%s event %s: %s", kind, reason, clip(l, 400)), nil
			}
		}
		return false, fmt.Sprintf("%d %s %s event(s) in %s, none containing %q", len(lines)-countEmpty(lines), kind, reason, namespace, substr), nil
	}
}

// ReadyEndpoints holds when the Service has n ready endpoints (EndpointSlices).
func ReadyEndpoints(namespace, service string, n int) assert.Check {
	return endpoints(namespace, service, "ready", n)
}

// ServingEndpoints holds when the Service has n serving endpoints
// (EndpointSlices): ready ones and terminating ones still serving, which
// kube-proxy sends traffic to when no ready one is left. Zero means nothing
// answers behind the Service any more.
func ServingEndpoints(namespace, service string, n int) assert.Check {
	return endpoints(namespace, service, "serving", n)
}

// endpoints counts the Service's endpoints whose condition cond is true.
func endpoints(namespace, service, cond string, n int) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := lifecycle.From(ctx).Kubectl.Run(ctx, "get", "endpointslices", "-n", namespace, "-l", "kubernetes.io/service-name="+service,
			"-o", `jsonpath={range .items[*].endpoints[*]}{.conditions.`+cond+`}{" "}{.addresses[0]}{"\n"}{end}`)
		if err != nil {
			return false, "", assert.Unknown(fmt.Errorf("list endpointslices of %s/%s: %w", namespace, service, err))
		}
		count := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "true ") {
				count++
			}
		}
		return count == n, fmt.Sprintf("service %s/%s: %d %s endpoint(s)", namespace, service, count, cond), nil
	}
}

func countEmpty(lines []string) int {
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			n++
		}
	}
	return n
}

// FinalizerPending holds when the object is being deleted (it has a
// deletionTimestamp) and still carries finalizer: a deletion held up by it.
func FinalizerPending(kind, namespace, name, finalizer string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		m, err := lifecycle.GetMeta(ctx, kind, namespace, name)
		if lifecycle.NotFound(err) {
			return false, lifecycle.Ref(kind, namespace, name) + " not found", nil
		}
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		ok := m.Metadata.DeletionTimestamp != "" && slices.Contains(m.Metadata.Finalizers, finalizer)
		return ok, lifecycle.Ref(kind, namespace, name) + " " + m.Describe(), nil
	}
}
