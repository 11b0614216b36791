package selftest

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/gitops-conformance/suite/pkg/report"
)

func TestFaultVerdict(t *testing.T) {
	cell := func(o report.Outcome) *report.Report {
		return &report.Report{Cells: []report.Cell{{Outcome: o, Reason: "why"}}}
	}
	for _, tc := range []struct {
		name    string
		faulted bool
		r       *report.Report
		want    bool
	}{
		{"waited the outage out", true, cell(report.Reproduced), true},
		{"could not tell", true, cell(report.Error), true},
		{"a failed read taken for an answer", true, cell(report.NotReproduced), false},
		{"no fault done", false, cell(report.Reproduced), false},
		{"no report", true, nil, false},
		{"no cell", true, &report.Report{}, false},
	} {
		if got, why := FaultVerdict(tc.faulted, tc.r); got != tc.want {
			t.Errorf("%s: FaultVerdict = %v (%s), want %v", tc.name, got, why, tc.want)
		}
	}
}

func TestInterruptedReport(t *testing.T) {
	interrupted := &report.Report{Stopped: "interrupted (SIGINT)",
		Cells:  []report.Cell{{Outcome: report.Error, Reason: "interrupted during step x"}},
		NotRun: []report.Cell{{Variant: "ignore-differences", ArgoCD: "v2.14.11"}}}
	setup := &report.Report{Stopped: "interrupted (SIGINT) in the setup", NotRun: interrupted.NotRun}
	finished := &report.Report{Cells: []report.Cell{{Outcome: report.Reproduced}}}
	for _, tc := range []struct {
		name   string
		r      *report.Report
		expect Expect
		failed int
	}{
		{"the cell interrupted", interrupted, CellInterrupted, 0},
		{"at the build, in the cell", interrupted, SetupOrCell, 0},
		{"at the build, in the setup", setup, SetupOrCell, 0},
		{"no cell where one must be ERROR", setup, CellInterrupted, 1},
		{"a run that was not interrupted", finished, CellInterrupted, 3},
	} {
		failed := 0
		var texts []string
		for _, res := range InterruptedReport(tc.r, tc.expect) {
			texts = append(texts, res.Text)
			if !res.OK {
				failed++
			}
		}
		if failed != tc.failed {
			t.Errorf("%s: %d check(s) failed, want %d: %q", tc.name, failed, tc.failed, texts)
		}
	}
}

func TestReadiness(t *testing.T) {
	one := "[1/2] 10:00:01 step sync application kube-ovn-crd\n[1/2] 10:00:09 step sync application kube-ovn-crd\n"
	if BothStarted(one) {
		t.Error("BothStarted: true for one cluster's lines only")
	}
	if !BothStarted(one + "[2/2] 10:00:30 step sync application kube-ovn-crd\n") {
		t.Error("BothStarted: false with both clusters' sync")
	}
	if CellStarted("prepare the cell\n") || !CellStarted("10:00 sync application kube-ovn-crd\n") {
		t.Error("CellStarted does not tell the cell's sync")
	}
	ps := []Process{{1, "/bin/bash /repo/images/argocd/build.sh v2.14.5"}, {2, "go build ./cmd/argocd"}}
	if !BuildRunning(ps, "v2.14.5") || BuildRunning(ps, "v2.14.11") {
		t.Error("BuildRunning does not tell the release's build")
	}
}

func TestSessionOf(t *testing.T) {
	for stat, want := range map[string]int{
		"4242 (bash) S 1 4242 4242 0 -1": 4242,
		"77 (a (b) c) R 1 70 71 0":       71,
	} {
		if got, ok := sessionOf(stat); !ok || got != want {
			t.Errorf("sessionOf(%q) = %d, %v; want %d", stat, got, ok, want)
		}
	}
	if _, ok := sessionOf("garbage"); ok {
		t.Error("sessionOf(garbage) ok")
	}
}

// A child started in a session of its own is found by it; this process is
// not in it.
func TestSessionProcesses(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start sleep:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ps := SessionProcesses(cmd.Process.Pid)
	if len(ps) != 1 || ps[0].PID != cmd.Process.Pid || !strings.HasPrefix(ps[0].Args, "sleep 30") {
		t.Fatalf("SessionProcesses(child) = %v, want the sleep alone", ps)
	}
	for _, p := range SessionProcesses(cmd.Process.Pid) {
		if p.PID == os.Getpid() {
			t.Error("this process is listed in the child's session")
		}
	}
}

func TestMirrorEvidence(t *testing.T) {
	containerd := `time="2026-11-28T04:10:00Z" level=info msg="PullImage \"quay.io/argoproj/argocd:v2.14.11\""
time="2026-11-28T04:10:01Z" level=info msg=resolving host="172.18.0.5:5000"
time="2026-11-28T04:10:02Z" level=info msg="Pulled image" other
time="2026-11-28T04:10:09Z" level=info msg="PullImage \"quay.io/argoproj/argocd:v2.14.11\" returns image reference \"sha256:ab\""
`
	pulls := ContainerdPulls(containerd)
	if strings.Count(pulls, "\n") != 3 || !strings.HasPrefix(pulls, `2026-11-28T04:10:00Z "PullImage`) {
		t.Fatalf("ContainerdPulls:\n%s", pulls)
	}
	served := ContainerdRequests(`172.18.0.2 - - [28/Nov/2026] "GET /v2/argoproj/argocd/manifests/v2.14.11?ns=quay.io HTTP/1.1" 200 "" "containerd/v1.7"
172.18.0.1 - - [28/Nov/2026] "PUT /v2/argoproj/argocd/manifests/v2.14.11 HTTP/1.1" 201 "" "docker/27"
time="x" level=info msg="response completed"
`)
	if strings.Count(served, "\n") != 1 {
		t.Fatalf("ContainerdRequests:\n%s", served)
	}
	evidence := pulls + served
	r := &report.Report{RegistryMirror: "172.18.0.5:5000"}
	imgs := []string{"quay.io/argoproj/argocd:v2.14.11"}
	if err := MirrorProblem(evidence, imgs, "172.18.0.5:5000", r); err != nil {
		t.Fatalf("MirrorProblem on complete evidence: %v", err)
	}
	for name, tc := range map[string]struct {
		evidence, mirror string
		imgs             []string
		r                *report.Report
	}{
		"an image not pulled":        {evidence, "172.18.0.5:5000", append(imgs, "redis:7"), r},
		"resolved elsewhere":         {evidence, "10.0.0.1:5000", imgs, &report.Report{RegistryMirror: "10.0.0.1:5000"}},
		"no quay.io pull served":     {pulls, "172.18.0.5:5000", imgs, r},
		"the report names no mirror": {evidence, "172.18.0.5:5000", imgs, &report.Report{}},
	} {
		if MirrorProblem(tc.evidence, tc.imgs, tc.mirror, tc.r) == nil {
			t.Errorf("%s: MirrorProblem found nothing", name)
		}
	}
}

func TestTally(t *testing.T) {
	var b strings.Builder
	tl := &Tally{Log: Log{Name: "interrupt-test", Out: &b}}
	tl.Check(true, "a")
	tl.Check(false, "b")
	if tl.Summary() != "interrupt-test: 1 passed, 1 failed" || !strings.Contains(b.String(), "interrupt-test: FAIL: b") {
		t.Errorf("summary %q, log %q", tl.Summary(), b.String())
	}
}
