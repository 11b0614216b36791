package env

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
)

// Scale sets a workload's replicas (kubectl scale), the way an operator does.
func Scale(kind, namespace, name string, replicas int) features.Func {
	return assert.Step(fmt.Sprintf("scale %s to %d", ref(kind, namespace, name), replicas), func(ctx context.Context) error {
		c := CellFrom(ctx)
		c.Step("scale %s to %d", ref(kind, namespace, name), replicas)
		c.Watch(kind, namespace, name)
		_, err := From(ctx).Kubectl.Run(ctx, "scale", kind, name, "-n", namespace, fmt.Sprintf("--replicas=%d", replicas))
		return err
	})
}

// Label sets labels (key=value, or key- to remove) on an object (kubectl label --overwrite).
func Label(kind, namespace, name string, labels ...string) features.Func {
	return assert.Step(fmt.Sprintf("label %s %s", ref(kind, namespace, name), strings.Join(labels, " ")), func(ctx context.Context) error {
		c := CellFrom(ctx)
		c.Step("label %s %v", ref(kind, namespace, name), labels)
		c.Watch(kind, namespace, name)
		args := append([]string{"label", "--overwrite", kind, name}, labels...)
		if namespace != "" {
			args = append(args, "-n", namespace)
		}
		_, err := From(ctx).Kubectl.Run(ctx, args...)
		return err
	})
}

// Observe looks once with check and records what it saw as an observation
// of the report; it never fails the cell (a measurement, not a verdict).
func Observe(what string, check assert.Check) features.Func {
	return assert.Step("observe "+what, func(ctx context.Context) error {
		ok, seen, err := check(ctx)
		if err != nil {
			seen = "error: " + err.Error()
		}
		observe(ctx, "%s: %v (%s)", what, ok, seen)
		return nil
	})
}

// JSONPathMatches holds when a kubectl jsonpath over the object matches the
// regular expression re (e.g. "." for non-empty).
func JSONPathMatches(kind, namespace, name, jsonpath, re string) assert.Check {
	rx := regexp.MustCompile(re)
	return func(ctx context.Context) (bool, string, error) {
		out, err := get(ctx, kind, namespace, name, "jsonpath="+jsonpath)
		if err != nil {
			return false, ref(kind, namespace, name) + " not found", nil
		}
		return rx.MatchString(out), fmt.Sprintf("%s %s = %q", ref(kind, namespace, name), jsonpath, clip(out, 300)), nil
	}
}

// EventSeen holds when an event in namespace about an object of kind has
// the reason and a message containing substr.
func EventSeen(namespace, kind, reason, substr string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := From(ctx).Kubectl.Run(ctx, "get", "events", "-n", namespace,
			"--field-selector", "involvedObject.kind="+kind+",reason="+reason,
			"-o", `jsonpath={range .items[*]}{.involvedObject.name}: {.message}{"\n"}{end}`)
		if err != nil {
			return false, "", fmt.Errorf("list events in %q: %w", namespace, err)
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
	return func(ctx context.Context) (bool, string, error) {
		out, err := From(ctx).Kubectl.Run(ctx, "get", "endpointslices", "-n", namespace, "-l", "kubernetes.io/service-name="+service,
			"-o", `jsonpath={range .items[*].endpoints[*]}{.conditions.ready}{" "}{.addresses[0]}{"\n"}{end}`)
		if err != nil {
			return false, "", fmt.Errorf("list endpointslices of %s/%s: %w", namespace, service, err)
		}
		ready := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "true ") {
				ready++
			}
		}
		return ready == n, fmt.Sprintf("service %s/%s: %d ready endpoint(s)", namespace, service, ready), nil
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

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
