package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gitops-conformance/suite/internal/host"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/suites"
)

// exitStatus is an error that ends the CLI with its own status (130: a run
// was interrupted).
type exitStatus struct {
	code int
	err  error
}

func (e *exitStatus) Error() string { return e.err.Error() }
func (e *exitStatus) Unwrap() error { return e.err }

// answers is one file of known answers: each validation one run of the e2e
// test binary's test, expecting the answers measured before, and a table of
// the answers against the runs' outcomes. make conform-validate's and make
// upgrade-check-validate's are two of it, run by one runner (validate) and
// tabled by one command (table).
type answers struct {
	kind    string // "conform-validate": the make target, and the reports' directory prefix
	command string // "conform validate"
	file    string // "suites/conform.yaml"
	test    string // "TestConform"
	table   string // the committed table, "docs/conform-validation.md"
	// reuse: the runs given one cluster go one after the other on it, kept
	// between them (make conform deletes what it installed); else each run
	// deletes its cluster (make upgrade-check leaves ArgoCD, metrics-server
	// or a webhook that the next must not find).
	reuse    bool
	parallel string // -parallel's default: "1", or "auto"
	// names are the validations, in the file's order.
	names func() ([]string, error)
	// flags are the test binary's flags for one validation run from repo,
	// whose own files (the seed charts written for it) go under dir.
	flags func(ctx context.Context, name, repo, dir string, log io.Writer) ([]string, error)
	// render is the table of the named validations against runs (each
	// validation's under reports/where[name]/): the answers not matched.
	render func(names []string, runs map[string]*report.Report, where map[string]string) (string, int)
}

// knownAnswers are the two files of known answers, by the reports'
// directory prefix.
func knownAnswers() []answers {
	return []answers{conformAnswers(), upgradeCheckAnswers()}
}

func conformAnswers() answers {
	load := func() ([]suites.Validation, error) { return suites.Validations() }
	byName := validation(load, func(v suites.Validation) string { return v.Name }, "suites/conform.yaml")
	return answers{kind: "conform-validate", command: "conform validate", file: "suites/conform.yaml", test: "TestConform",
		table: "docs/conform-validation.md", reuse: true, parallel: "1",
		names: func() ([]string, error) { return namesOf(load, func(v suites.Validation) string { return v.Name }) },
		flags: func(ctx context.Context, name, _, _ string, _ io.Writer) ([]string, error) {
			v, err := byName(name)
			if err != nil {
				return nil, err
			}
			cache, err := runner.CacheDir()
			if err != nil {
				return nil, err
			}
			return v.Args(ctx, filepath.Join(cache, "conform-validate"))
		},
		render: func(names []string, runs map[string]*report.Report, _ map[string]string) (string, int) {
			vs, _ := load()
			vs = slices.DeleteFunc(vs, func(v suites.Validation) bool { return !slices.Contains(names, v.Name) })
			return ValidationTable(vs, runs)
		},
	}
}

func upgradeCheckAnswers() answers {
	load := func() ([]suites.UpgradeValidation, error) { return suites.UpgradeValidations() }
	byName := validation(load, func(v suites.UpgradeValidation) string { return v.Name }, "suites/upgrade-check-validate.yaml")
	return answers{kind: "upgrade-check-validate", command: "upgrade-check validate", file: "suites/upgrade-check-validate.yaml", test: "TestUpgradeCheck",
		table: "docs/upgrade-check-validation.md", parallel: "auto",
		names: func() ([]string, error) {
			return namesOf(load, func(v suites.UpgradeValidation) string { return v.Name })
		},
		flags: func(ctx context.Context, name, repo, dir string, log io.Writer) ([]string, error) {
			v, err := byName(name)
			if err != nil {
				return nil, err
			}
			apps := v.Apps
			if apps == "" { // the seed charts, written for this run
				apps = filepath.Join(dir, "apps")
				if err := writeSeedApps(ctx, log, apps, v.Only); err != nil {
					return nil, err
				}
			}
			return v.Args(repo, apps), nil
		},
		render: func(names []string, runs map[string]*report.Report, where map[string]string) (string, int) {
			vs, _ := load()
			vs = slices.DeleteFunc(vs, func(v suites.UpgradeValidation) bool { return !slices.Contains(names, v.Name) })
			return UpgradeValidationTable(vs, runs, where)
		},
	}
}

// validation is the validation of load's named name, or an error naming file.
func validation[T any](load func() ([]T, error), name func(T) string, file string) func(string) (T, error) {
	return func(n string) (T, error) {
		var zero T
		vs, err := load()
		if err != nil {
			return zero, err
		}
		i := slices.IndexFunc(vs, func(v T) bool { return name(v) == n })
		if i < 0 {
			return zero, fmt.Errorf("no validation %q in %s", n, file)
		}
		return vs[i], nil
	}
}

// namesOf are the names of what load reads.
func namesOf[T any](load func() ([]T, error), name func(T) string) ([]string, error) {
	vs, err := load()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, v := range vs {
		out = append(out, name(v))
	}
	return out, nil
}

// validate is conform validate and upgrade-check validate (make
// conform-validate, make upgrade-check-validate): each validation of the
// file (-only: those named) one run of the test binary expecting its known
// answers, -parallel runs side by side each on a kind cluster of its own
// (<cluster>-1 ...; one cluster, reused, is <cluster>). Each run writes its
// report into reports/<kind>-<time>/<validation>/ and its output, each line
// prefixed with its name, to stdout and to output.log there, so the report
// read is the run's. Then the table is written (-table; with -only, beside
// the reports): exit 1 when an answer differs or a run wrote no report, 130
// when interrupted. The arguments are more flags for the test binary
// (-mode, -registry-mirror ...).
func (a answers) validate(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	e2e := fs.String("e2e", "bin/e2e.test", "the e2e test binary (make builds it)")
	cluster := fs.String("cluster", "gitops-conformance", "kind cluster name: with several, <cluster>-1, <cluster>-2 ...")
	parallel := fs.String("parallel", a.parallel, "runs side by side, each on a cluster of its own; auto: as many as this machine runs clusters")
	keep := fs.Bool("keep", false, "keep the clusters after the last run")
	only := fs.String("only", "", "only these validations, comma-separated")
	reports := fs.String("reports", "reports", "the runs' reports go under DIR/"+a.kind+"-<time>/<validation>/")
	table := fs.String("table", a.table, "write the known answers against the outcomes to this file (with -only: the selected validations', into the run's report directory unless -table is given)")
	if err := parse(fs, args); err != nil {
		return err
	}
	all, err := a.names()
	if err != nil {
		return err
	}
	names, err := selectNamed(all, func(n string) string { return n }, *only, a.command, a.file)
	if err != nil {
		return err
	}
	n := host.ThisMachine().Clusters()
	if *parallel != "auto" {
		if n, err = strconv.Atoi(*parallel); err != nil || n < 1 || n > runner.MaxClusters {
			return &runner.BadInput{Err: fmt.Errorf("%s: -parallel %q: a number of clusters, 1 to %d, or auto", a.command, *parallel, runner.MaxClusters)}
		}
	}
	n = max(1, min(n, len(names)))
	repo, err := os.Getwd() // make runs it from the checkout
	if err != nil {
		return err
	}
	bin, err := testBinary(*e2e, a.command)
	if err != nil {
		return err
	}
	root, err := filepath.Abs(filepath.Join(*reports, a.kind+"-"+time.Now().UTC().Format("20060102-150405")))
	if err != nil {
		return err
	}
	if *only != "" && !flagSet(fs, "table") {
		*table = filepath.Join(root, filepath.Base(a.table))
	}
	var mu sync.Mutex // stdout's lines, runs, status
	log := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(c.stdout, "%s %s: %s\n", time.Now().Format("15:04:05"), a.kind, fmt.Sprintf(format, args...))
	}
	// Ctrl-C reaches the test binaries too (one process group): each stops,
	// reports and cleans up, and exits 130; this waits for them and starts
	// no other run.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	defer signal.Reset(os.Interrupt, syscall.SIGTERM)
	log("%d validation(s) on %d cluster(s) side by side; reports under %s", len(names), n, root)

	runs := map[string]*report.Report{}
	var status error
	interrupted := false
	// a reused cluster's runs are fixed in advance, so its last run knows
	// to delete it; otherwise the runs are taken as clusters free up
	queues := make([]chan int, n)
	shared := make(chan int)
	for k := range queues {
		queues[k] = shared
		if a.reuse {
			queues[k] = make(chan int, len(names))
		}
	}
	if a.reuse {
		for i := range names {
			queues[i%n] <- i
		}
		for _, q := range queues {
			close(q)
		}
	}
	var wg sync.WaitGroup
	start := time.Now()
	for k := range n {
		name := *cluster
		if n > 1 || !a.reuse {
			name = fmt.Sprintf("%s-%d", *cluster, k+1)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queues[k] {
				mu.Lock()
				stop := interrupted // handed out before the interrupt was seen
				mu.Unlock()
				if stop {
					continue
				}
				v := names[i]
				last := !a.reuse || len(queues[k]) == 0
				log("%d/%d %s on cluster %s", i+1, len(names), v, name)
				t := time.Now()
				r, rc, err := a.runOne(ctx, c.stdout, &mu, v, bin, repo, filepath.Join(root, v), name, *keep || !last, fs.Args())
				mu.Lock()
				switch {
				case err != nil:
					status = err
				case rc == runner.ExitInterrupted:
					interrupted = true
				case rc > 1: // 1: an answer not as known; the table says which
					status = &exitStatus{rc, fmt.Errorf("%s: %s: the e2e test binary exited %d", a.command, v, rc)}
				}
				if r != nil {
					runs[v] = r
				}
				mu.Unlock()
				if r == nil {
					log("%s: no report (exit %d)", v, rc)
					continue
				}
				log("%s: run %s, exit %d, %d s", v, r.RunID, rc, int(time.Since(t).Seconds()))
			}
		}()
	}
	if !a.reuse {
		for i := range names {
			mu.Lock()
			stop := interrupted
			mu.Unlock()
			if stop {
				break
			}
			shared <- i
		}
		close(shared)
	}
	wg.Wait()
	log("%d run(s) in %d s", len(runs), int(time.Since(start).Seconds()))
	if interrupted {
		log("interrupted")
		return &exitStatus{runner.ExitInterrupted, errors.New(a.command + ": interrupted")}
	}
	where := map[string]string{}
	for _, v := range names {
		where[v] = filepath.Base(root)
	}
	text, failed := a.render(names, runs, where)
	if err := os.MkdirAll(filepath.Dir(*table), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*table, []byte(text), 0o644); err != nil {
		return err
	}
	log("table: %s", *table)
	if failed > 0 {
		return fmt.Errorf("%s: %d known answer(s) not matched (%s)", a.command, failed, *table)
	}
	return status
}

// runOne runs one validation into dir on cluster: its report (nil when it
// wrote none) and the test binary's exit status.
func (a answers) runOne(ctx context.Context, stdout io.Writer, mu *sync.Mutex, name, bin, repo, dir, cluster string, keep bool, more []string) (*report.Report, int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	out, err := os.Create(filepath.Join(dir, "output.log"))
	if err != nil {
		return nil, 0, err
	}
	defer out.Close()
	w := &lineWriter{fn: func(line string) {
		fmt.Fprintln(out, line)
		mu.Lock()
		fmt.Fprintln(stdout, "["+name+"] "+line)
		mu.Unlock()
	}}
	defer w.Close()
	flags, err := a.flags(ctx, name, repo, dir, w)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %s: %w", a.command, name, err)
	}
	flags = append(append(flags, more...), "-cluster", cluster, "-command", "make "+a.kind+" ONLY="+name, "-reports", dir)
	if keep {
		flags = append(flags, "-keep")
	}
	rc, err := runTestBinary(ctx, bin, a.test, filepath.Join(repo, "suites"), flags, w, w)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %s: %w", a.command, name, err)
	}
	w.Close()
	r, err := report.LoadDir(filepath.Join(dir, "latest"))
	if err != nil {
		return nil, rc, nil
	}
	return r, rc, nil
}

// lineWriter hands fn each line written to it (the last one at Close).
type lineWriter struct {
	fn  func(string)
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := slices.Index(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		w.fn(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
}

func (w *lineWriter) Close() {
	if len(w.buf) > 0 {
		w.fn(string(w.buf))
		w.buf = nil
	}
}

// answersTable is table: a validation run's table again from its reports,
// each DIR a reports/conform-validate-<time>/ or
// reports/upgrade-check-validate-<time>/ (one kind), for the validations
// they ran; a validation run in several, from the last DIR named.
func answersTable(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	out := fs.String("o", "", "write the table to this file (default: stdout)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return &runner.BadInput{Err: errors.New("table: want DIR..., reports/conform-validate-<time>/ or reports/upgrade-check-validate-<time>/ directories")}
	}
	var a *answers
	for _, dir := range fs.Args() {
		base := filepath.Base(filepath.Clean(dir))
		i := slices.IndexFunc(knownAnswers(), func(k answers) bool { return strings.HasPrefix(base, k.kind+"-") })
		switch {
		case i < 0:
			return &runner.BadInput{Err: fmt.Errorf("table: %s is not a reports/conform-validate-<time>/ or reports/upgrade-check-validate-<time>/ directory", dir)}
		case a != nil && a.kind != knownAnswers()[i].kind:
			return &runner.BadInput{Err: fmt.Errorf("table: %s is %s's, the others %s's: one kind of validation a table", dir, knownAnswers()[i].kind, a.kind)}
		}
		k := knownAnswers()[i]
		a = &k
	}
	all, err := a.names()
	if err != nil {
		return err
	}
	var names []string
	runs, where := map[string]*report.Report{}, map[string]string{}
	for _, v := range all {
		for _, dir := range fs.Args() {
			if !exists(filepath.Join(dir, v)) {
				continue
			}
			if where[v] == "" {
				names = append(names, v)
			}
			where[v] = filepath.Base(filepath.Clean(dir))
			delete(runs, v)
			if r, err := report.LoadDir(filepath.Join(dir, v, "latest")); err == nil {
				runs[v] = r
			}
		}
	}
	if len(names) == 0 {
		return &runner.BadInput{Err: fmt.Errorf("table: %s hold no validation's directory", strings.Join(fs.Args(), ", "))}
	}
	table, failed := a.render(names, runs, where)
	if *out == "" {
		fmt.Fprint(c.stdout, table)
	} else if err := os.WriteFile(*out, []byte(table), 0o644); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("table: %d known answer(s) not matched", failed)
	}
	return nil
}
