package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

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

// conformValidate is conform validate (make conform-validate): each
// validation of suites/conform.yaml, a chart a scenario measured installed
// as it installed it, is one make conform run (the e2e test binary's
// TestConform) with its known answers as the cells' expectations, one after
// the other on one kind cluster (kept between runs, deleted after the last
// unless -keep). Each run writes its report into a directory of its own, so
// the report read is the run's. Then the table (conform table) is written
// to -table; exit 1 when an answer differs or a run wrote no report. The
// arguments are more flags for the test binary (-mode, -registry-mirror ...).
func conformValidate(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	e2e := fs.String("e2e", "bin/e2e.test", "the e2e test binary (make builds it)")
	cluster := fs.String("cluster", "gitops-conformance", "kind cluster name")
	keep := fs.Bool("keep", false, "keep the cluster after the last run")
	only := fs.String("only", "", "only these validations, comma-separated")
	reports := fs.String("reports", "reports", "the runs' reports go under DIR/conform-validate-<time>/<validation>/")
	table := fs.String("table", "docs/conform-validation.md", "write the known answers against the outcomes to this file (with -only: the selected validations only, into the run's report directory unless -table is given)")
	if err := parse(fs, args); err != nil {
		return err
	}
	vs, err := suites.Validations()
	if err != nil {
		return err
	}
	// The table lists every validation, one not run now as "not run" (a
	// differing answer); with -only it lists those selected, and is written
	// beside their reports: the committed table stays the whole run's.
	vs, err = selectNamed(vs, func(v suites.Validation) string { return v.Name }, *only, "conform validate", "suites/conform.yaml")
	if err != nil {
		return err
	}
	repo, err := os.Getwd() // make runs it from the checkout
	if err != nil {
		return err
	}
	bin, err := testBinary(*e2e, "conform validate")
	if err != nil {
		return err
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	log := func(format string, a ...any) {
		fmt.Fprintf(c.stdout, "%s conform-validate: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
	}
	// Ctrl-C reaches the test binary too (one process group): it stops,
	// reports and cleans up, and exits 130; this waits for it.
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	defer signal.Reset(os.Interrupt, syscall.SIGTERM)
	// each run's reports under a directory of its own: <dir>/latest is the run's
	root, err := filepath.Abs(filepath.Join(*reports, "conform-validate-"+time.Now().UTC().Format("20060102-150405")))
	if err != nil {
		return err
	}
	if *only != "" && !flagSet(fs, "table") {
		*table = filepath.Join(root, "conform-validation.md")
	}
	runs := map[string]*report.Report{}
	var status error
	start := time.Now()
	for i, v := range vs {
		flags, err := v.Args(ctx, filepath.Join(cache, "conform-validate"))
		if err != nil {
			return err
		}
		dir := filepath.Join(root, v.Name)
		flags = append(append(flags, fs.Args()...), "-cluster", *cluster, "-command", "make conform-validate ONLY="+v.Name, "-reports", dir)
		if i+1 < len(vs) || *keep {
			flags = append(flags, "-keep")
		}
		log("%d/%d %s", i+1, len(vs), v.Name)
		t := time.Now()
		rc, err := runTestBinary(ctx, bin, "TestConform", filepath.Join(repo, "suites"), flags, c.stdout, os.Stderr)
		if err != nil {
			return fmt.Errorf("conform validate: %s: %w", v.Name, err)
		}
		switch rc {
		case 0, 1: // 1: an outcome not as known; the table says which
		case 130:
			log("interrupted")
			return &exitStatus{130, errors.New("conform validate: interrupted")}
		default:
			status = &exitStatus{rc, fmt.Errorf("conform validate: %s: the e2e test binary exited %d", v.Name, rc)}
		}
		r, err := report.LoadDir(filepath.Join(dir, "latest"))
		if err != nil {
			log("%s: no report (exit %d)", v.Name, rc)
			continue
		}
		runs[v.Name] = r
		log("%s: run %s, exit %d, %d s", v.Name, r.RunID, rc, int(time.Since(t).Seconds()))
	}
	log("%d run(s) in %d s", len(vs), int(time.Since(start).Seconds()))
	text, failed := ValidationTable(vs, runs)
	if err := os.MkdirAll(filepath.Dir(*table), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*table, []byte(text), 0o644); err != nil {
		return err
	}
	log("table: %s", *table)
	if failed > 0 {
		return fmt.Errorf("conform validate: %d known answer(s) not matched (%s)", failed, *table)
	}
	return status
}
