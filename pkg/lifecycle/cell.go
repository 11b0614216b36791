package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// Cell is the state of one running cell: where its evidence goes, what it
// must clean up (in reverse order) and which objects to dump.
type Cell struct {
	Dir        string
	cleanups   []cleanup
	evidence   []object
	logs       []object
	timelines  []*timeline
	namespaces []string
	steps      []string
	unwritten  []string // evidence files that could not be written
	released   []string // Applications whose deletion hooks the end releases
	writeErr   error    // why the first of them was not
	started    time.Time
	// Repro is what the cell's steps did, for its reproduction bundle.
	Repro *repro.Log
	// Evidence and Teardown are End's time: the evidence dumped and
	// written, then the cleanups.
	Evidence, Teardown time.Duration
}

type cleanup struct {
	what string
	fn   func(context.Context) error
}

type object struct{ kind, namespace, name string }

type cellKey struct{}

// WithCell starts a cell whose evidence goes to dir.
func WithCell(ctx context.Context, dir string) (context.Context, *Cell) {
	ctx, log := repro.WithLog(ctx)
	c := &Cell{Dir: dir, namespaces: []string{argocd.Namespace}, started: time.Now(), Repro: log}
	return context.WithValue(ctx, cellKey{}, c), c
}

// CellFrom returns the running cell.
func CellFrom(ctx context.Context) *Cell {
	c, ok := ctx.Value(cellKey{}).(*Cell)
	if !ok {
		panic("env: no cell in context")
	}
	return c
}

// Defer registers a cleanup; cleanups run in reverse order when the cell ends.
func (c *Cell) Defer(what string, fn func(context.Context) error) {
	c.cleanups = append(c.cleanups, cleanup{what, fn})
}

// Watch adds an object to the evidence dump, and the events of its
// namespace (of a namespace, its own: what the workloads in it did).
func (c *Cell) Watch(kind, namespace, name string) {
	c.evidence = append(c.evidence, object{kind, namespace, name})
	if strings.EqualFold(kind, "namespace") {
		namespace = name
	}
	if namespace != "" && !slices.Contains(c.namespaces, namespace) {
		c.namespaces = append(c.namespaces, namespace)
	}
}

// WatchLog adds a workload's log (kind/name, as kubectl logs takes it, in
// namespace) over the cell's span to the evidence dump.
func (c *Cell) WatchLog(namespace, workload string) {
	c.logs = append(c.logs, object{"", namespace, workload})
}

// Step logs one step of the cell, with a timestamp, for the reproduction bundle.
func (c *Cell) Step(format string, args ...any) {
	c.steps = append(c.steps, time.Now().UTC().Format(time.RFC3339)+" "+fmt.Sprintf(format, args...))
}

// WriteEvidence writes content as the file name (a path inside the cell's
// evidence directory) and creates the directories it needs. A file that
// cannot be written is remembered and End fails the cell with it: its
// evidence is part of what a cell reports.
func (c *Cell) WriteEvidence(name, content string) {
	path := filepath.Join(c.Dir, name)
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = os.WriteFile(path, []byte(content), 0o644)
	}
	c.notWritten(name, err)
}

// notWritten remembers an evidence file that could not be written.
func (c *Cell) notWritten(name string, err error) {
	if err == nil {
		return
	}
	c.unwritten = append(c.unwritten, name)
	if c.writeErr == nil {
		c.writeErr = err
	}
}

// Drop removes the pending cleanups named what (their work was done by a step).
func (c *Cell) Drop(what string) {
	c.cleanups = slices.DeleteFunc(c.cleanups, func(cl cleanup) bool { return cl.what == what })
}

// Pending reports whether a cleanup named what is registered.
func (c *Cell) Pending(what string) bool {
	return slices.ContainsFunc(c.cleanups, func(cl cleanup) bool { return cl.what == what })
}

// ReleaseDeletionHooks marks the Application app: the cell's deletion of it
// removes ArgoCD's deletion-hook finalizers once the deletion started.
func (c *Cell) ReleaseDeletionHooks(app string) {
	if !slices.Contains(c.released, app) {
		c.released = append(c.released, app)
	}
}

// DeletionHooksReleased reports whether the cell's end releases app's
// deletion hooks (ReleaseDeletionHooks).
func (c *Cell) DeletionHooksReleased(app string) bool { return slices.Contains(c.released, app) }

// observe adds an observation to the cell's record and its step log.
func Note(ctx context.Context, format string, args ...any) {
	assert.RecordFrom(ctx).Observe(format, args...)
	CellFrom(ctx).Step(format, args...)
}

// ReproRecord is the file in a cell's evidence holding its reproduction
// record (pkg/repro), until the bundle is written from it.
const ReproRecord = "repro-record.json"

// evidenceAfterInterrupt bounds the evidence dump of an interrupted cell: the
// user asked to stop, and the dump is a handful of kubectl reads.
const evidenceAfterInterrupt = 20 * time.Second

// End dumps the evidence, then runs the cleanups in reverse order. It runs
// whatever happened in the cell, so the next cell starts clean. When the run
// was interrupted (ctx cancelled) it dumps the evidence within
// evidenceAfterInterrupt and runs no cleanup: no next cell will use the
// cluster, which is deleted or, kept, marked as not clean.
func (r *Run) End(ctx context.Context, c *Cell) error {
	start := time.Now()
	defer func() { c.Teardown = time.Since(start) - c.Evidence }()
	interrupted := ctx.Err() != nil
	ctx = context.WithoutCancel(ctx)
	dump, cancel := ctx, context.CancelFunc(func() {})
	if interrupted {
		dump, cancel = context.WithTimeout(ctx, evidenceAfterInterrupt)
		c.Step("interrupted: %d cleanup(s) not run", len(c.cleanups))
	}
	r.DumpEvidence(dump, c, "")
	cancel()
	for _, t := range c.timelines {
		t.stop(c)
	}
	c.WriteEvidence("steps.txt", strings.Join(c.steps, "\n")+"\n")
	c.notWritten(ReproRecord, c.Repro.Save(filepath.Join(c.Dir, ReproRecord)))
	c.Evidence = time.Since(start)
	var evidence error
	if len(c.unwritten) > 0 {
		evidence = &EvidenceError{Files: c.unwritten, Err: c.writeErr}
	}
	if interrupted {
		r.Dirty = true
		return nil
	}
	var errs []string
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		cl := c.cleanups[i]
		if err := cl.fn(ctx); err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", cl.what, err))
		}
	}
	if len(errs) > 0 {
		r.Dirty = true
		return errors.Join(&CleanupError{What: errs}, evidence)
	}
	return evidence
}

// CleanupError is what of a cell's cleanups failed (the cluster is not
// reused after it: Run.Dirty). It comes after the cell's verdict, which it
// does not change (runner's execute keeps it, with this as a note).
type CleanupError struct{ What []string }

func (e *CleanupError) Error() string { return "cleanup: " + strings.Join(e.What, "; ") }

// EvidenceError is evidence of a cell that could not be written: its
// verdict would stand on nothing a reader can see, so the cell is an ERROR.
type EvidenceError struct {
	Files []string
	Err   error
}

func (e *EvidenceError) Error() string {
	return fmt.Sprintf("evidence not written: %s: %v", strings.Join(e.Files, ", "), e.Err)
}
func (e *EvidenceError) Unwrap() error { return e.Err }

// DumpEvidence writes what the cell's assertions looked at into its evidence
// directory, or into its subdirectory sub when given (Cell.WriteEvidence).
// Secrets are never dumped (kubectl get of a Secret is not among the
// evidence kinds).
func (r *Run) DumpEvidence(ctx context.Context, c *Cell, sub string) {
	write := func(name, content string) {
		c.WriteEvidence(filepath.Join(sub, name), content)
	}
	read := func(args ...string) string {
		out, err := r.Kubectl.Run(ctx, args...)
		if err != nil {
			return fmt.Sprintf("# %v\n", err)
		}
		return out
	}
	write("applications.yaml", read("-n", argocd.Namespace, "get", "applications.argoproj.io", "-o", "yaml"))
	for _, ns := range c.namespaces {
		write("events-"+ns+".txt", read("-n", ns, "get", "events", "--sort-by=.lastTimestamp"))
	}
	// the cell's whole span (a held sync logs several lines a second: a tail
	// would keep only the last seconds, not the moment it got held)
	since := "--since-time=" + c.started.UTC().Format(time.RFC3339)
	write("argocd-application-controller.log", read("-n", argocd.Namespace, "logs", argocd.Controller, since))
	write("argocd-repo-server.log", read("-n", argocd.Namespace, "logs", "deploy/argocd-repo-server", since))
	for _, l := range c.logs {
		write(l.namespace+"-"+strings.ReplaceAll(l.name, "/", "-")+".log", read("-n", l.namespace, "logs", l.name, "--all-containers", since))
	}
	for _, o := range c.evidence {
		if strings.EqualFold(o.kind, "secret") {
			continue
		}
		args := []string{"get", o.kind, o.name, "-o", "yaml"}
		if o.namespace != "" {
			args = append(args, "-n", o.namespace)
		}
		write(strings.ToLower(o.kind)+"-"+o.name+".yaml", read(args...))
	}
}
