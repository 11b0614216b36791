package selftest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/e2erun"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/report"
)

// Interrupt is the interrupt test (conformance selftest interrupt, make
// interrupt-test): real runs of the e2e test binary on a cluster of their
// own, each sent SIGINT to its process group as a terminal's Ctrl-C does,
// at a point its case names (InterruptCases). Each time: exit status 130
// within Limit, no process of the run's session left, no container of its
// cluster left (nodes, registry), and a report that says "interrupted", the
// interrupted cell ERROR and the rest not run.
type Interrupt struct {
	E2E, Repo  string
	Cluster    string
	BuildTag   string // an ArgoCD release no run builds to the end here
	ArgoCD     string // the smoke's release
	Kubernetes string
	Limit      time.Duration // from the signal to the exit (a parallel run: twice)
	Cases      []string      // names of InterruptCases; empty: all
	Out        io.Writer
	// DeleteCluster removes a cluster and its registry (conformance cluster
	// delete): leftovers of an earlier run at the start, and whatever a
	// failed case left.
	DeleteCluster func(ctx context.Context, name string) error
}

// Expect is what an interrupted run's report must say of its cells.
type Expect int

const (
	// CellInterrupted: the first cell ended ERROR "interrupted".
	CellInterrupted Expect = iota
	// SetupOrCell: that, or no cell had started (the signal came in the
	// setup's prebuild) and every planned cell is not run.
	SetupOrCell
)

// InterruptCase is one interrupted run: where it is interrupted and with
// which arguments it runs.
type InterruptCase struct {
	Name  string
	Ready string // the point it is interrupted at
	// ready reports whether the run reached that point.
	ready  func(i Interrupt, run *e2erun.Run) bool
	args   func(i Interrupt) []string
	Expect Expect
	Slower int // its limit is Limit times this
}

// InterruptCases are the cases, in the order they run.
func InterruptCases() []InterruptCase {
	return []InterruptCase{
		// the build runs in the setup (the prebuild beside the node image) or,
		// when that was done, in the first cell's install: either way nothing
		// is left
		{Name: "at-build", Ready: "the build of the release running", Expect: SetupOrCell, Slower: 1,
			ready: func(i Interrupt, run *e2erun.Run) bool {
				return BuildRunning(SessionProcesses(run.Session()), i.BuildTag) && strings.Contains(run.Output(), i.BuildTag)
			},
			args: func(i Interrupt) []string {
				return []string{"-scenario", "kubeovn-argocd", "-variant", "bug,ignore-differences", "-argocd", i.BuildTag, "-kubernetes", i.Kubernetes}
			}},
		{Name: "at-cell", Ready: "the first cell's sync", Expect: CellInterrupted, Slower: 1,
			ready: func(_ Interrupt, run *e2erun.Run) bool { return CellStarted(run.Output()) },
			args: func(i Interrupt) []string {
				return []string{"-scenario", "kubeovn-argocd", "-variant", "bug,ignore-differences", "-argocd", i.ArgoCD, "-kubernetes", i.Kubernetes}
			}},
		// two clusters taking the cells from the run's queue: each starts
		// one, two are left not run. Four variants on the smoke's release,
		// not a second release: on a new machine another ArgoCD release is
		// another cold build (v2.13.3's took about 6 min with Go's build
		// cache warm, on 2026-11-26).
		{Name: "parallel", Ready: "both clusters' first sync", Expect: CellInterrupted, Slower: 2,
			ready: func(_ Interrupt, run *e2erun.Run) bool { return BothStarted(run.Output()) },
			args: func(i Interrupt) []string {
				return []string{"-scenario", "kubeovn-argocd", "-variant", "bug,ignore-differences,argocd-cm,server-side-diff",
					"-argocd", i.ArgoCD, "-kubernetes", i.Kubernetes, "-clusters", "2", "-deliver", "registry"}
			}},
	}
}

// InterruptCaseNames are the cases' names.
func InterruptCaseNames() []string {
	var names []string
	for _, c := range InterruptCases() {
		names = append(names, c.Name)
	}
	return names
}

// syncStep is the first step of the kubeovn-argocd cell's feature past its
// preparation, as the run logs it.
const syncStep = "sync application kube-ovn-crd"

// CellStarted reports whether a run's output shows its cell under way.
func CellStarted(out string) bool { return strings.Contains(out, syncStep) }

// shardLine is a parallel run's line from one of its two clusters.
var shardLine = regexp.MustCompile(`(?m)^\[([12])/2\] .*` + regexp.QuoteMeta(syncStep))

// BothStarted reports whether both clusters of a two-cluster run have
// started a cell.
func BothStarted(out string) bool {
	seen := map[string]bool{}
	for _, m := range shardLine.FindAllStringSubmatch(out, -1) {
		seen[m[1]] = true
	}
	return len(seen) == 2
}

// BuildRunning reports whether one of ps is the ArgoCD recipe building tag.
func BuildRunning(ps []Process, tag string) bool {
	return slices.ContainsFunc(ps, func(p Process) bool { return strings.Contains(p.Args, "argocd/build.sh "+tag) })
}

// Result is one check: whether it held and what was seen.
type Result struct {
	OK   bool
	Text string
}

// InterruptedReport checks what an interrupted run's report says: why it
// stopped, which cells it did not run, and its interrupted cell.
func InterruptedReport(r *report.Report, expect Expect) []Result {
	var rs []Result
	if strings.Contains(r.Stopped, "interrupted") {
		rs = append(rs, Result{true, "report.json says why the run stopped: " + r.Stopped})
	} else {
		rs = append(rs, Result{false, fmt.Sprintf("report.json does not say interrupted: stopped %q, not run %s", r.Stopped, notRun(r))})
	}
	if len(r.NotRun) >= 1 {
		rs = append(rs, Result{true, "not run: " + notRun(r)})
	} else {
		rs = append(rs, Result{false, "report.json lists no cell as not run"})
	}
	switch {
	case expect == SetupOrCell && len(r.Cells) == 0:
		// the build was the run's prebuild, beside the node image and the cluster
		rs = append(rs, Result{true, "interrupted in the setup's prebuild: no cell started, every planned cell not run"})
	case len(r.Cells) > 0 && r.Cells[0].Outcome == report.Error && strings.Contains(r.Cells[0].Reason, "interrupted"):
		rs = append(rs, Result{true, "the interrupted cell is ERROR: " + text.Clip(r.Cells[0].Reason, 160)})
	case len(r.Cells) > 0:
		rs = append(rs, Result{false, fmt.Sprintf("the interrupted cell: %s: %s", r.Cells[0].Outcome, r.Cells[0].Reason)})
	default:
		rs = append(rs, Result{false, "the report has no cell: the interrupted one should be ERROR"})
	}
	return rs
}

func notRun(r *report.Report) string {
	var s []string
	for _, c := range r.NotRun {
		s = append(s, c.Variant+"@"+c.ArgoCD)
	}
	return text.OrNone(strings.Join(s, " "))
}

// Run runs the cases: nil when every check passed; ErrInterrupted after a
// Ctrl-C.
func (i Interrupt) Run(ctx context.Context) error {
	t := &Tally{Log: Log{Name: "interrupt-test", Out: i.Out}}
	tmp, err := os.MkdirTemp("", "interrupt-test.")
	if err != nil {
		return err
	}
	ctx, in := e2erun.Watch(ctx)
	defer in.Stop()
	interrupted := in.Interrupted
	if left, _ := Containers(ctx, i.Cluster+"-"); len(left) > 0 {
		t.Log.Printf("removing cluster %s left by an earlier run", i.Cluster)
		if err := i.DeleteCluster(ctx, i.Cluster); err != nil {
			return err
		}
	}
	for _, c := range InterruptCases() {
		if len(i.Cases) > 0 && !slices.Contains(i.Cases, c.Name) {
			continue
		}
		run := e2erun.E2E(i.E2E, i.Repo, filepath.Join(tmp, c.Name+".log"), append([]string{
			"-test.v", "-test.count=1", "-test.timeout", "60m", "-test.run", "TestMatrix",
			"-cluster", i.Cluster, "-reports", filepath.Join(tmp, c.Name), "-mode", "offline"}, c.args(i)...)...)
		i.runCase(ctx, t, c, in, run)
		if left, _ := Containers(ctx, i.Cluster+"-"); len(left) > 0 {
			t.Log.Printf("%s: removing what the run left: %s", c.Name, strings.Join(left, " "))
			if err := i.DeleteCluster(context.WithoutCancel(ctx), i.Cluster); err != nil {
				t.Log.Printf("%s: %v", c.Name, err)
			}
		}
		if interrupted() {
			t.Log.Printf("interrupted; reports and logs kept: %s", tmp)
			return ErrInterrupted
		}
	}
	if t.Failed == 0 {
		os.RemoveAll(tmp) // nothing to look at: every check passed
	} else {
		t.Log.Printf("reports and logs kept for a look: %s", tmp)
	}
	fmt.Fprintln(i.Out, t.Summary())
	if t.Failed > 0 {
		return fmt.Errorf("%s", t.Summary())
	}
	return nil
}

// runCase runs one case and checks what the run did about its interrupt.
func (i Interrupt) runCase(ctx context.Context, t *Tally, c InterruptCase, in *e2erun.Interrupts, run *e2erun.Run) {
	interrupted := in.Interrupted
	t.Log.Printf("%s: starting (%s)", c.Name, strings.Join(c.args(i), " "))
	if err := in.Start(run); err != nil {
		t.Check(false, "%s: %v", c.Name, err)
		return
	}
	if !e2erun.WaitFor(ctx, 25*time.Minute, run, func() bool { return c.ready(i, run) }) || interrupted() {
		if !interrupted() {
			t.Check(false, "%s: never reached %s; the run's last lines:\n%s", c.Name, c.Ready, run.Tail(20))
		}
		run.Signal(syscall.SIGKILL)
		_, _ = run.Wait()
		return
	}
	time.Sleep(5 * time.Second)
	t.Log.Printf("%s: SIGINT to the run's process group (%s)", c.Name, c.Ready)
	start := time.Now()
	run.Signal(syscall.SIGINT)
	rc, err := run.Wait()
	elapsed := time.Since(start).Round(time.Second)
	if err != nil {
		t.Check(false, "%s: %v", c.Name, err)
		return
	}
	if !t.Check(rc == 130, "%s: exit status %d (want 130)", c.Name, rc) {
		t.Log.Printf("%s: the run's last lines:\n%s", c.Name, run.Tail(30))
	}
	limit := i.Limit * time.Duration(c.Slower)
	t.Check(elapsed <= limit, "%s: exited %s after the signal (limit %s)", c.Name, elapsed, limit)
	time.Sleep(2 * time.Second)
	var left []string
	for _, p := range SessionProcesses(run.Session()) {
		left = append(left, fmt.Sprintf("%d %s", p.PID, p.Args))
	}
	t.Check(len(left) == 0, "%s: processes of the run left: %s", c.Name, text.OrNone(strings.Join(left, "; ")))
	containers, err := Containers(ctx, i.Cluster+"-")
	t.Check(err == nil && len(containers) == 0, "%s: containers of cluster %s left (nodes, registry): %s%s", c.Name, i.Cluster,
		text.OrNone(strings.Join(containers, " ")), errText(err))
	r, err := e2erun.Report(filepath.Join(filepath.Dir(run.Log), c.Name))
	if err != nil {
		t.Check(false, "%s: no report: %v", c.Name, err)
		return
	}
	for _, res := range InterruptedReport(r, c.Expect) {
		t.Check(res.OK, "%s: %s", c.Name, res.Text)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return " (" + err.Error() + ")"
}
