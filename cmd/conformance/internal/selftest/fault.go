package selftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/e2erun"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/report"
)

// Fault is the API-fault test (conformance selftest fault, make
// fault-test): a verdict never rests on a read that failed. It runs the
// kubeovn-argocd bug cell on a cluster of its own and, once the verdict's
// hold has begun (its step "application kube-ovn-crd OutOfSync after a
// refresh"), takes the API server away for Pause: Kind "kill" kills
// kube-apiserver in the node again and again (reads fail at once:
// connection refused, while the kubelet restarts it), "pause" freezes the
// node container (reads hang). The cell must end REPRODUCED (the hold waited
// the outage out) or ERROR (a read could not tell), never NOT_REPRODUCED.
type Fault struct {
	E2E, Repo  string // the e2e test binary (absolute) and the checkout
	Cluster    string
	ArgoCD     string // the smoke's release
	Kubernetes string
	Pause      time.Duration
	Kind       string // kill or pause
	Out        io.Writer
}

// FaultVerdictStep is the verdict's hold, as the test binary names its
// subtest ("application kube-ovn-crd OutOfSync after a refresh").
const FaultVerdictStep = "OutOfSync_after_a_refresh"

// FaultVerdict decides the fault test: it passes when the fault was done
// during the hold and the cell ended REPRODUCED or ERROR; why, either way.
func FaultVerdict(faulted bool, r *report.Report) (bool, string) {
	if !faulted {
		return false, "the hold never began: no fault was done"
	}
	if r == nil || len(r.Cells) == 0 {
		return false, "the run wrote no cell"
	}
	switch c := r.Cells[0]; c.Outcome {
	case report.Reproduced:
		return true, "REPRODUCED: the hold waited the outage out"
	case report.Error:
		return true, "ERROR: a read could not tell (" + c.Reason + ")"
	default:
		return false, fmt.Sprintf("%s: a failed read was taken for an answer (%s)", c.Outcome, c.Reason)
	}
}

// Run runs the test: nil when it passed; ErrInterrupted after a Ctrl-C.
func (f Fault) Run(ctx context.Context) error {
	t := &Tally{Log: Log{Name: "fault-test", Out: f.Out}}
	tmp, err := os.MkdirTemp("", "fault-test.")
	if err != nil {
		return err
	}
	run := e2erun.E2E(f.E2E, f.Repo, filepath.Join(tmp, "run.log"), []string{
		"-test.v", "-test.count=1", "-test.timeout", "30m", "-test.run", "TestMatrix", "-cluster", f.Cluster,
		"-reports", filepath.Join(tmp, "reports"), "-mode", "offline", "-scenario", "kubeovn-argocd", "-variant", "bug",
		"-argocd", f.ArgoCD, "-kubernetes", f.Kubernetes}...)
	ctx, in := e2erun.Watch(ctx)
	defer in.Stop()
	interrupted := in.Interrupted
	if err := in.Start(run); err != nil {
		return err
	}
	node := f.Cluster + "-control-plane"
	faulted := false
	if e2erun.WaitFor(ctx, 20*time.Minute, run, func() bool { return strings.Contains(run.Output(), FaultVerdictStep) }) && !interrupted() {
		time.Sleep(3 * time.Second)
		faulted = f.fault(ctx, t.Log, node, interrupted)
	}
	rc, err := run.Wait()
	if err != nil {
		return err
	}
	r, loadErr := e2erun.Report(filepath.Join(tmp, "reports"))
	if r != nil && len(r.Cells) > 0 {
		t.Log.Printf("exit %d; the cell: %s: %s", rc, r.Cells[0].Outcome, r.Cells[0].Reason)
		t.Log.Printf("report: %s (removed when the check passes)", r.Dir)
	} else {
		t.Log.Printf("exit %d; no cell in a report (%v)", rc, loadErr)
	}
	if interrupted() {
		t.Log.Printf("interrupted; report and run log kept: %s", tmp)
		return ErrInterrupted
	}
	ok, why := FaultVerdict(faulted, r)
	t.Check(ok, "%s", why)
	if ok {
		os.RemoveAll(tmp) // the verdict is quoted above; nothing else to look at
	} else {
		t.Log.Printf("report and run log kept for a look: %s", tmp)
		if !faulted {
			t.Log.Printf("the run's last lines:\n%s", run.Tail(20))
		}
	}
	fmt.Fprintln(f.Out, t.Summary())
	if !ok {
		return errors.New(t.Summary())
	}
	return nil
}

// fault takes the API server of node away for f.Pause and reports whether
// it did; a Ctrl-C ends the fault early, and a paused node is always
// unpaused.
func (f Fault) fault(ctx context.Context, log Log, node string, interrupted func() bool) bool {
	if f.Kind == "pause" {
		log.Printf("the verdict's hold has begun: docker pause %s for %s", node, f.Pause)
		if _, err := shell.Output(ctx, "docker", "pause", node); err != nil {
			log.Printf("docker pause %s: %v", node, err)
			return false
		}
		defer func() {
			if _, err := shell.Output(context.WithoutCancel(ctx), "docker", "unpause", node); err != nil {
				log.Printf("docker unpause %s: %v", node, err)
			}
			log.Printf("docker unpause %s", node)
		}()
		for end := time.Now().Add(f.Pause); time.Now().Before(end) && !interrupted(); {
			time.Sleep(time.Second)
		}
		return true
	}
	log.Printf("the verdict's hold has begun: killing kube-apiserver in %s for %s", node, f.Pause)
	killed := false
	for end := time.Now().Add(f.Pause); time.Now().Before(end) && !interrupted(); {
		if _, err := shell.Output(ctx, "docker", "exec", node, "pkill", "-x", "kube-apiserver"); err == nil {
			killed = true
		}
		time.Sleep(time.Second)
	}
	log.Printf("kube-apiserver left to the kubelet to restart")
	return killed
}

// ErrInterrupted is a self-test stopped by a Ctrl-C (exit status 130).
var ErrInterrupted = errors.New("interrupted")
