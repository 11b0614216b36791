package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/schedule"
)

// Exit statuses of a run (the test binary's, and each shard's).
const (
	ExitFailed      = 1   // a cell fails the run (report.Fails); a check failed
	ExitBadInput    = 2   // an unknown scenario, variant or version: nothing started
	ExitInterrupted = 130 // SIGINT, SIGTERM or the time limit stopped the run
)

// shardStop is how long a shard has, after it was told to stop, to end its
// cell, write its report and delete its cluster before it is killed.
const shardStop = 10 * time.Minute

// Parallel runs the plan on n clusters at once, one process each: self (the
// test binary) with args (its command line) and, appended so they win, the
// queue its cells are taken from (-queue, see Queue), its cluster
// (<cluster>-<k>) and its own reports directory under the run's. Each
// process is an ordinary run with its own cluster, report and cleanup, which
// takes the next cell whenever it is free; their output is printed as it
// comes, each line prefixed [k/N]. At the end their reports are merged into
// one, in this run's directory, as if the cells had run one after the other.
//
// ctx cancelled (the first Ctrl-C) tells each shard to stop (SIGINT: it ends
// its cell, writes its report and deletes its cluster; the cells still
// queued are reported not run); the shards run in process groups of their
// own, so a terminal's Ctrl-C reaches them only this way, once. again (a
// second Ctrl-C) tells them again: they leave at once.
func (r *Runner) Parallel(ctx context.Context, n int, costs *schedule.Costs, self string, args []string, again <-chan struct{}) int {
	out := &lockedWriter{w: r.Run.Out}
	r.Run.Out = out // the run's own lines and the shards' do not cut each other
	n = min(n, len(r.Cells))
	queue, err := schedule.NewQueue(filepath.Join(r.Dir, "queue"), n, r.Cells, r.Repeat, costs.Of)
	if err != nil {
		r.Run.Logf("queue: %v", err)
		r.Finish("setup failed: the queue: " + err.Error())
		return ExitFailed
	}
	est := schedule.EstimateOf(r.Cells, r.Repeat, costs, func(c matrix.Cell) string { return skipped(r.Run.Catalog, c, r.Run.Mode) })
	r.Run.Logf("plan: %d cell(s) x %d run(s) on %d cluster(s) at once, each taking the next cell when free; about %s of cluster time (%s), %s wall; report %s",
		len(r.Cells), r.Repeat, n, est.Total.Round(time.Minute), perRelease(r.Cells), est.Wall(n).Round(time.Minute), r.Dir)
	procs := make([]*shardProc, n)
	for i := range procs {
		procs[i] = &shardProc{index: i + 1, cluster: fmt.Sprintf("%s-%d", r.Run.Cluster, i+1), dir: filepath.Join(r.Dir, "shards", strconv.Itoa(i+1))}
		r.Run.Logf("shard %d/%d on cluster %s: its report and output under %s", i+1, n, procs[i].cluster, procs[i].dir)
	}
	var kubes []string // the shards' first clusters spread over the Kubernetes axis
	for _, c := range r.Cells {
		if !slices.Contains(kubes, c.Kubernetes.Version) {
			kubes = append(kubes, c.Kubernetes.Version)
		}
	}
	start := time.Now()
	prog := &progress{total: len(r.Cells) * r.Repeat, start: start, logf: r.Run.Logf}
	var wg sync.WaitGroup
	for _, p := range procs {
		p.progress = prog
		prefix := fmt.Sprintf("[%d/%d] ", p.index, n)
		cmdArgs := append(append([]string{}, args...), "-clusters", "1", "-queue", queue.Dir, "-cluster", p.cluster,
			"-first-kubernetes", kubes[(p.index-1)%len(kubes)],
			"-reports", p.dir, "-command", fmt.Sprintf("%s (cluster %d/%d)", r.report.Command, p.index, n))
		if err := p.start(ctx, self, cmdArgs, out, prefix); err != nil {
			r.Run.Logf("cluster %d: %v", p.index, err)
			p.exit = ExitFailed
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); p.wait() }()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		for _, p := range procs {
			p.signal()
		}
		select {
		case <-done:
		case <-again:
			for _, p := range procs {
				p.signal()
			}
			<-done
		case <-time.After(shardStop):
			for _, p := range procs {
				p.kill()
			}
			<-done
		}
	}
	return r.mergeShards(ctx, procs, time.Since(start))
}

// perRelease says how many cells run on each ArgoCD release, in the plan's order.
func perRelease(cells []matrix.Cell) string {
	var tags []catalog.Release
	n := map[catalog.Release]int{}
	for _, c := range cells {
		if n[c.ArgoCD] == 0 {
			tags = append(tags, c.ArgoCD)
		}
		n[c.ArgoCD]++
	}
	parts := make([]string, len(tags))
	for i, tag := range tags {
		parts[i] = fmt.Sprintf("%s %d", tag, n[tag])
	}
	return strings.Join(parts, ", ")
}

// mergeShards merges the shards' reports into the run's and returns the
// run's exit status.
func (r *Runner) mergeShards(ctx context.Context, procs []*shardProc, wall time.Duration) int {
	var reports []*report.Report
	var stopped []string
	failed := false
	for _, p := range procs {
		rep, err := loadLatest(p.dir)
		note := fmt.Sprintf("shard %d on cluster %s: exit status %d, %s", p.index, p.cluster, p.exit, p.took.Round(time.Second))
		if err != nil {
			note += fmt.Sprintf("; no report (%v): the cells it took did not run; its output is in %s", err, p.log)
			stopped = append(stopped, fmt.Sprintf("shard %d ended without a report", p.index))
			failed = true
		} else {
			note += fmt.Sprintf(", %d cell(s): %s", len(rep.Cells), ids(rep.Cells))
			reports = append(reports, rep)
			if rep.Stopped != "" {
				stopped = append(stopped, fmt.Sprintf("shard %d: %s", p.index, rep.Stopped))
			}
		}
		if p.exit != 0 && p.exit != ExitFailed && p.exit != ExitInterrupted {
			failed = true
		}
		r.report.Notes = append(r.report.Notes, note)
	}
	merged := &report.Report{}
	if len(reports) > 0 {
		var err error
		if merged, err = report.Merge(reports...); err != nil {
			r.Run.Logf("merge the shards' reports: %v", err)
			failed = true
			merged = &report.Report{}
		}
	}
	rep := r.report
	rep.Cells, rep.Sources = merged.Cells, merged.Sources
	rep.Offline, rep.RegistryMirror = merged.Offline, merged.RegistryMirror
	if merged.Kubernetes != "" {
		rep.Kubernetes = merged.Kubernetes
	}
	rep.Notes = append([]string{fmt.Sprintf("ran on %d kind clusters at once (-clusters %d), %s wall; each shard's own report and logs are under shards/", len(procs), len(procs), wall.Round(time.Second))}, rep.Notes...)
	rep.Notes = append(rep.Notes, merged.Notes...)
	if len(stopped) > 0 || ctx.Err() != nil {
		rep.NotRun = r.notRun(rep.Cells)
		why := stopped
		if ctx.Err() != nil {
			why = append([]string{interrupted(ctx, "")}, why...)
		}
		rep.Stopped = strings.Join(why, "; ")
	}
	rep.Finished = time.Now().UTC()
	if err := rep.Rebase(r.Dir); err != nil {
		r.Run.Logf("report: %v", err)
	}
	if err := r.publish(rep, fmt.Sprintf(" (merged from %d shard(s))", len(reports))); err != nil {
		return ExitFailed
	}
	interrupted := ctx.Err() != nil
	for _, p := range procs {
		interrupted = interrupted || p.exit == ExitInterrupted // its time limit, before this run's
	}
	switch {
	case interrupted:
		return ExitInterrupted
	case failed || rep.Failed():
		return ExitFailed
	}
	return 0
}

// ids are the report IDs of cells, comma-separated.
func ids(cells []report.Cell) string {
	s := make([]string, len(cells))
	for i, c := range cells {
		s[i] = c.ID()
	}
	return strings.Join(s, ", ")
}

// shardProc is one cluster's process.
type shardProc struct {
	index             int // from 1
	cluster, dir, log string
	cmd               *exec.Cmd
	logFile           *os.File
	pipes             sync.WaitGroup
	exit              int
	took              time.Duration
	started           time.Time
	progress          *progress
}

// cellDone is the line a run logs when a cell's run ends (Runner.Cell).
var cellDone = regexp.MustCompile(`^\d\d:\d\d:\d\d cell \S+: ([A-Z_]+) in \d+s`)

// progress counts the cells' runs the shards have finished, for one line
// each: how far the whole run is.
type progress struct {
	mu       sync.Mutex
	total, n int
	failed   int
	start    time.Time
	logf     func(string, ...any)
}

func (p *progress) done(outcome string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if outcome == "ERROR" {
		p.failed++
	}
	p.logf("progress: %d/%d cell run(s) done in %s (%d ERROR)", p.n, p.total, time.Since(p.start).Round(time.Second), p.failed)
}

func (p *shardProc) start(ctx context.Context, self string, args []string, out io.Writer, prefix string) error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return err
	}
	p.log = filepath.Join(p.dir, "output.log")
	f, err := os.Create(p.log)
	if err != nil {
		return err
	}
	p.logFile = f
	// not CommandContext: the shard is stopped by a signal it handles, and
	// given shardStop to clean up, never killed with the context
	p.cmd = exec.Command(self, args...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Dir, _ = os.Getwd()
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p.cmd.Stderr = p.cmd.Stdout
	if err := p.cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("start %s: %w", self, err)
	}
	p.started = time.Now()
	p.pipes.Add(1)
	go func() {
		defer p.pipes.Done()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(f, line)
			fmt.Fprintln(out, prefix+line)
			if m := cellDone.FindStringSubmatch(line); m != nil {
				p.progress.done(m[1])
			}
		}
	}()
	return nil
}

func (p *shardProc) wait() {
	p.pipes.Wait() // the pipe is read to its end before Wait closes it
	err := p.cmd.Wait()
	p.took = time.Since(p.started)
	p.logFile.Close()
	var exit *exec.ExitError
	switch {
	case err == nil:
		p.exit = 0
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		p.exit = exit.ExitCode()
	default:
		p.exit = ExitFailed
	}
}

// signal sends the shard SIGINT, as a Ctrl-C would.
func (p *shardProc) signal() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(os.Interrupt)
	}
}

// kill ends the shard's process group.
func (p *shardProc) kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// lockedWriter writes whole lines from several shards without interleaving them.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// loadLatest loads the report a run wrote under reports (its latest link,
// resolved: evidence paths name the run's own directory).
func loadLatest(reports string) (*report.Report, error) {
	dir, err := filepath.EvalSymlinks(filepath.Join(reports, "latest"))
	if err != nil {
		return nil, err
	}
	return report.LoadDir(dir)
}
