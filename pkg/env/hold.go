package env

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/gitops-conformance/suite/internal/cluster"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/check"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/step"
)

// Taking one actor out of the cluster for a while stages a race one way: what
// the other actors do meanwhile happens before it can react. The pairs below
// stop one and start it again; the cell starts it again at its end whatever
// happened in between, so the next cell finds the cluster whole.

// StopWorkload scales a Deployment to 0 (kubectl scale, as an operator takes a
// controller down) and waits until none of its Pods (selector) is left, so
// nothing of it still reacts. Its log so far goes to the evidence first
// (<namespace>-<name>-before-stop.log): the Pod that wrote it goes.
func StopWorkload(deployment Object, pods Selection) step.Step {
	namespace, name := deployment.Namespace, deployment.Name
	what := fmt.Sprintf("deployment %s/%s stopped", namespace, name)
	return act(what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		if out, err := r.Kubectl.Run(ctx, "logs", "-n", namespace, "deploy/"+name, "--all-containers", "--timestamps"); err == nil {
			c.WriteEvidence(namespace+"-"+name+"-before-stop.log", out)
		}
		c.Defer(startWorkload(namespace, name), func(ctx context.Context) error {
			_, err := r.Kubectl.Run(ctx, "scale", "deployment", name, "-n", namespace, "--replicas=1")
			return err
		})
		c.Step("kubectl scale deployment %s -n %s --replicas=0", name, namespace)
		if _, err := r.Kubectl.Run(ctx, "scale", "deployment", name, "-n", namespace, "--replicas=0"); err != nil {
			return err
		}
		return assert.Eventually(ctx, "no pod of deployment "+namespace+"/"+name+" left", assert.Intervals.Rollout,
			check.NoneLeft(pods))
	})
}

// StartWorkload scales the Deployment StopWorkload stopped back to one
// replica and waits until it is available again.
func StartWorkload(deployment Object) step.Step {
	namespace, name := deployment.Namespace, deployment.Name
	return act(startWorkload(namespace, name), func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		c.Drop(startWorkload(namespace, name))
		c.Step("kubectl scale deployment %s -n %s --replicas=1", name, namespace)
		if _, err := r.Kubectl.Run(ctx, "scale", "deployment", name, "-n", namespace, "--replicas=1"); err != nil {
			return err
		}
		return assert.Eventually(ctx, "deployment "+namespace+"/"+name+" available", assert.Intervals.Rollout,
			check.JSONPathIs(deployment, "{.status.availableReplicas}", "1"))
	})
}

func startWorkload(namespace, name string) string {
	return fmt.Sprintf("deployment %s/%s started again", namespace, name)
}

// The kind node keeps its control plane as static Pods: the kubelet runs
// what this directory holds and stops what leaves it.
const (
	staticPods = "/etc/kubernetes/manifests"
	heldPods   = "/etc/kubernetes/held-manifests"
)

// StopControlPlane takes a control-plane component (kube-controller-manager,
// kube-scheduler) off the kind node: its static Pod's manifest moves out of
// the kubelet's manifest directory, as an operator takes one out for
// maintenance or a restart leaves it down, and the step waits until its
// process is gone. With kube-controller-manager go the garbage collector,
// the namespace controller and the workload controllers.
func StopControlPlane(component string) step.Step {
	what := "control plane: " + component + " stopped"
	return act(what, func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		node := cluster.NodeContainer(r.Cluster)
		c.Defer(startControlPlane(component), func(ctx context.Context) error {
			return restoreStaticPod(ctx, node, component)
		})
		mv := fmt.Sprintf("mkdir -p %[2]s && mv %[1]s/%[3]s.yaml %[2]s/%[3]s.yaml", staticPods, heldPods, component)
		c.Step("docker exec %s sh -c %q", node, mv)
		if _, err := shell.Run(ctx, shell.Cmd{Name: "docker", Args: []string{"exec", node, "sh", "-c", mv}}); err != nil {
			return err
		}
		return assert.Eventually(ctx, component+"'s process gone from "+node, assert.Intervals.Rollout,
			nodeProcess(node, component, false))
	})
}

// StartControlPlane puts back what StopControlPlane took off and waits until
// the component's process runs again.
func StartControlPlane(component string) step.Step {
	return act(startControlPlane(component), func(ctx context.Context) error {
		r, c := lifecycle.From(ctx), lifecycle.CellFrom(ctx)
		node := cluster.NodeContainer(r.Cluster)
		c.Drop(startControlPlane(component))
		c.Step("docker exec %s: %s back into %s", node, component, staticPods)
		if err := restoreStaticPod(ctx, node, component); err != nil {
			return err
		}
		return assert.Eventually(ctx, component+"'s process running in "+node, assert.Intervals.Rollout,
			nodeProcess(node, component, true))
	})
}

func startControlPlane(component string) string {
	return "control plane: " + component + " started again"
}

// restoreStaticPod moves a held manifest back; nothing held is nothing to do.
func restoreStaticPod(ctx context.Context, node, component string) error {
	mv := fmt.Sprintf("if [ -f %[2]s/%[3]s.yaml ]; then mv %[2]s/%[3]s.yaml %[1]s/%[3]s.yaml; fi", staticPods, heldPods, component)
	_, err := shell.Run(ctx, shell.Cmd{Name: "docker", Args: []string{"exec", node, "sh", "-c", mv}})
	return err
}

// nodeProcess holds when the node runs the component's process (running)
// or none (!running), as pgrep on the node sees its command line (the node
// image's crictl may be a stand-in offline); pgrep's exit 1 is "none", a
// failed docker exec could not tell.
func nodeProcess(node, component string, running bool) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := shell.Run(ctx, shell.Cmd{Name: "docker", Args: []string{"exec", node, "pgrep", "-f", "^" + component + "( |$)"}})
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == 1:
			return !running, fmt.Sprintf("no %s process in %s", component, node), nil
		case err != nil:
			return false, "", assert.Unknown(err)
		}
		return running, fmt.Sprintf("%s running in %s (pid %s)", component, node, strings.Join(strings.Fields(out), " ")), nil
	}
}
