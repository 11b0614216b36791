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

// upgradeValidate is upgrade-check validate (make upgrade-check-validate):
// each validation of suites/upgrade-check-validate.yaml, an upgrade path and
// Applications with verdicts measured on it, is one make upgrade-check run
// (the e2e test binary's TestUpgradeCheck) expecting them. The runs go
// side by side on -parallel kind clusters (<cluster>-1 ...), each run on a
// cluster of its own that it deletes at its end: a run leaves ArgoCD,
// metrics-server or a webhook that the next must not find. Each run writes
// its report into a directory of its own, and its output, each line
// prefixed with its name, to stdout and to output.log there. Then the table
// (docs/upgrade-check-validation.md) is written; exit 1 when an answer
// differs or a run wrote no report. The arguments are more flags for the
// test binary (-mode, -registry-mirror ...).
func upgradeValidate(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	e2e := fs.String("e2e", "bin/e2e.test", "the e2e test binary (make builds it)")
	cluster := fs.String("cluster", "gitops-conformance", "kind cluster name: the runs' are <cluster>-1, <cluster>-2 ...")
	parallel := fs.String("parallel", "auto", "runs side by side, each on a cluster of its own; auto: as many as this machine runs clusters")
	keep := fs.Bool("keep", false, "keep each run's cluster after it")
	only := fs.String("only", "", "only these validations, comma-separated")
	reports := fs.String("reports", "reports", "the runs' reports go under DIR/upgrade-check-validate-<time>/<validation>/")
	table := fs.String("table", "docs/upgrade-check-validation.md", "write the known answers against the outcomes to this file (with -only: the selected validations', into the run's report directory unless -table is given)")
	if err := parse(fs, args); err != nil {
		return err
	}
	vs, err := suites.UpgradeValidations()
	if err != nil {
		return err
	}
	vs, err = selectNamed(vs, func(v suites.UpgradeValidation) string { return v.Name }, *only, "upgrade-check validate", "suites/upgrade-check-validate.yaml")
	if err != nil {
		return err
	}
	n := host.ThisMachine().Clusters()
	if *parallel != "auto" {
		if n, err = strconv.Atoi(*parallel); err != nil || n < 1 || n > runner.MaxClusters {
			return &runner.BadInput{Err: fmt.Errorf("upgrade-check validate: -parallel %q: a number of clusters, 1 to %d, or auto", *parallel, runner.MaxClusters)}
		}
	}
	n = min(n, len(vs))
	repo, err := os.Getwd() // make runs it from the checkout
	if err != nil {
		return err
	}
	bin, err := testBinary(*e2e, "upgrade-check validate")
	if err != nil {
		return err
	}
	root, err := filepath.Abs(filepath.Join(*reports, "upgrade-check-validate-"+time.Now().UTC().Format("20060102-150405")))
	if err != nil {
		return err
	}
	if *only != "" && !flagSet(fs, "table") {
		*table = filepath.Join(root, "upgrade-check-validation.md")
	}
	var mu sync.Mutex // stdout's lines, runs, status
	log := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(c.stdout, "%s upgrade-check-validate: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
	}
	// Ctrl-C reaches the test binaries too (one process group): each stops,
	// reports and deletes its cluster, and exits 130; this waits for them
	// and starts no other run.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	defer signal.Reset(os.Interrupt, syscall.SIGTERM)
	log("%d validation(s) on %d cluster(s) side by side; reports under %s", len(vs), n, root)

	runs := map[string]*report.Report{}
	var status error
	interrupted := false
	queue := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for k := 1; k <= n; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range queue {
				mu.Lock()
				stop := interrupted // the feeder may have handed this row out before it saw the interrupt
				mu.Unlock()
				if stop {
					continue
				}
				v := vs[i]
				log("%d/%d %s: %s -> %s on cluster %s-%d", i+1, len(vs), v.Name, v.From, v.To, *cluster, k)
				t := time.Now()
				r, rc, err := upgradeValidateOne(ctx, c.stdout, &mu, v, bin, repo, filepath.Join(root, v.Name), fmt.Sprintf("%s-%d", *cluster, k), *keep, fs.Args())
				mu.Lock()
				switch {
				case err != nil:
					status = err
				case rc == runner.ExitInterrupted:
					interrupted = true
				case rc > 1: // 1: a verdict not as known; the table says which
					status = &exitStatus{rc, fmt.Errorf("upgrade-check validate: %s: the e2e test binary exited %d", v.Name, rc)}
				}
				if r != nil {
					runs[v.Name] = r
				}
				mu.Unlock()
				if r == nil {
					log("%s: no report (exit %d)", v.Name, rc)
					continue
				}
				log("%s: run %s, exit %d, %d s", v.Name, r.RunID, rc, int(time.Since(t).Seconds()))
			}
		}()
	}
	for i := range vs {
		mu.Lock()
		stop := interrupted
		mu.Unlock()
		if stop {
			break
		}
		queue <- i
	}
	close(queue)
	wg.Wait()
	log("%d run(s) in %d s", len(runs), int(time.Since(start).Seconds()))
	if interrupted {
		log("interrupted")
		return &exitStatus{runner.ExitInterrupted, errors.New("upgrade-check validate: interrupted")}
	}
	where := map[string]string{}
	for _, v := range vs {
		where[v.Name] = filepath.Base(root)
	}
	text, failed := UpgradeValidationTable(vs, runs, where)
	if err := os.MkdirAll(filepath.Dir(*table), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*table, []byte(text), 0o644); err != nil {
		return err
	}
	log("table: %s", *table)
	if failed > 0 {
		return fmt.Errorf("upgrade-check validate: %d known answer(s) not matched (%s)", failed, *table)
	}
	return status
}

// upgradeValidateOne runs one validation into dir on cluster: its report
// (nil when it wrote none) and the test binary's exit status.
func upgradeValidateOne(ctx context.Context, stdout io.Writer, mu *sync.Mutex, v suites.UpgradeValidation, bin, repo, dir, cluster string, keep bool, more []string) (*report.Report, int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, 0, err
	}
	out, err := os.Create(filepath.Join(dir, "output.log"))
	if err != nil {
		return nil, 0, err
	}
	defer out.Close()
	prefix := "[" + v.Name + "] "
	w := &lineWriter{fn: func(line string) {
		fmt.Fprintln(out, line)
		mu.Lock()
		fmt.Fprintln(stdout, prefix+line)
		mu.Unlock()
	}}
	defer w.Close()
	apps := v.Apps
	if apps == "" {
		apps = filepath.Join(dir, "apps")
		if err := writeSeedApps(ctx, w, apps, v.Only); err != nil {
			return nil, 0, fmt.Errorf("upgrade-check validate: %s: %w", v.Name, err)
		}
	}
	flags := append(v.Args(repo, apps), more...)
	flags = append(flags, "-cluster", cluster, "-command", "make upgrade-check-validate ONLY="+v.Name, "-reports", dir)
	if keep {
		flags = append(flags, "-keep")
	}
	rc, err := runTestBinary(ctx, bin, "TestUpgradeCheck", filepath.Join(repo, "suites"), flags, w, w)
	if err != nil {
		return nil, 0, fmt.Errorf("upgrade-check validate: %s: %w", v.Name, err)
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

// upgradeCheckTable is upgrade-check table: make upgrade-check-validate's
// table again from the reports of its runs (each DIR a
// reports/upgrade-check-validate-<time>/), for the validations they ran; a
// validation run in several, from the last DIR named.
func upgradeCheckTable(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	out := fs.String("o", "", "write the table to this file (default: stdout)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return &runner.BadInput{Err: errors.New("upgrade-check table: want DIR..., reports/upgrade-check-validate-<time>/ directories")}
	}
	all, err := suites.UpgradeValidations()
	if err != nil {
		return err
	}
	var vs []suites.UpgradeValidation
	runs, where := map[string]*report.Report{}, map[string]string{}
	for _, v := range all {
		for _, dir := range fs.Args() {
			if !exists(filepath.Join(dir, v.Name)) {
				continue
			}
			if where[v.Name] == "" {
				vs = append(vs, v)
			}
			where[v.Name] = filepath.Base(filepath.Clean(dir))
			delete(runs, v.Name)
			if r, err := report.LoadDir(filepath.Join(dir, v.Name, "latest")); err == nil {
				runs[v.Name] = r
			}
		}
	}
	if len(vs) == 0 {
		return &runner.BadInput{Err: fmt.Errorf("upgrade-check table: %s hold no validation's directory", strings.Join(fs.Args(), ", "))}
	}
	table, failed := UpgradeValidationTable(vs, runs, where)
	if *out == "" {
		fmt.Fprint(c.stdout, table)
	} else if err := os.WriteFile(*out, []byte(table), 0o644); err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("upgrade-check table: %d known answer(s) not matched", failed)
	}
	return nil
}

// UpgradeValidationTable is make upgrade-check-validate's table: each
// validation's Applications, their known verdicts against the runs' (each
// validation's under reports/where[name]/); the number not matched (a
// validation not run counts as not matched).
func UpgradeValidationTable(vs []suites.UpgradeValidation, runs map[string]*report.Report, where map[string]string) (string, int) {
	var b strings.Builder
	b.WriteString("# make upgrade-check: the validation\n\n")
	b.WriteString("Generated by `make upgrade-check-validate` from its runs: each validation of\n" +
		"[`suites/upgrade-check-validate.yaml`](../suites/upgrade-check-validate.yaml) is one `make upgrade-check` run of\n" +
		"an upgrade path whose verdicts were measured before (the runs named); the outcome is what this run's cluster\n" +
		"showed. What each measured run showed, and where upstream's reports agree or not:\n" +
		"[upgrade-check-findings.md](upgrade-check-findings.md).\n\n")
	b.WriteString("| validation | path | setting | Application | known answer | measured in | outcome | run |\n|---|---|---|---|---|---|---|---|\n")
	failed, rows := 0, 0
	var ran []*report.Report
	for _, v := range vs {
		r := runs[v.Name]
		for _, app := range v.Applications() {
			rows++
			want := v.Expect[app]
			outcome, run := "not run", ""
			if r != nil {
				ran = append(ran, r)
				run = r.RunID
				outcome = "no cell"
				if i := slices.IndexFunc(r.Cells, func(c report.Cell) bool { return c.Variant == app }); i >= 0 {
					outcome = string(r.Cells[i].Outcome)
				}
			}
			mark := ""
			if !want.Allows(report.Outcome(outcome)) {
				failed++
				mark = " **differs**"
			}
			setting := v.Setting()
			if setting == "" {
				setting = "the defaults"
			}
			fmt.Fprintf(&b, "| `%s`: %s | %s -> %s | %s | %s | %s | %s | %s%s | %s |\n",
				v.Name, v.Title, v.From, v.To, setting, app, want, strings.Join(v.Measured, ", "), outcome, mark, run)
		}
	}
	fmt.Fprintf(&b, "\n%d of %d known answers matched (%s).\n", rows-failed, rows, runsWhen(ran))
	// where the reports are: the directory most validations ran in, and the
	// others' each with the validations that ran there
	byDir := map[string][]string{}
	var dirs []string
	for _, v := range vs {
		d := where[v.Name]
		if byDir[d] == nil {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], "`"+v.Name+"`")
	}
	slices.SortStableFunc(dirs, func(a, b string) int { return len(byDir[b]) - len(byDir[a]) })
	if len(dirs) > 0 {
		fmt.Fprintf(&b, "\nEach run's report is `reports/<dir>/<validation>/<run>/` (a run's id is the second it started: runs side by side can share one), <dir> being `%s`", dirs[0])
		for _, d := range dirs[1:] {
			fmt.Fprintf(&b, "; for %s, `%s`", strings.Join(byDir[d], ", "), d)
		}
		b.WriteString(".\n")
	}
	return b.String(), failed
}
