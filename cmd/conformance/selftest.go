package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/selftest"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
)

// selftestFlags are what every self-test takes: the e2e test binary, the
// cluster of its own, the smoke's release and Kubernetes version.
type selftestFlags struct {
	e2e, cluster, argocd, kubernetes *string
}

func registerSelftest(fs *flag.FlagSet, c cli, cluster string) selftestFlags {
	smoke, kube := "", ""
	if c.cat != nil {
		smoke, kube = c.cat.ArgoCD.Smoke, c.cat.Kubernetes.Default
	}
	return selftestFlags{
		e2e:        fs.String("e2e", "bin/e2e.test", "the e2e test binary (make builds it)"),
		cluster:    fs.String("cluster", cluster, "the kind cluster of the test's runs (a parallel run's are NAME-<n>)"),
		argocd:     fs.String("argocd", smoke, "the ArgoCD release of the smoke cell (default: the catalog's smoke release; make: SMOKE_ARGOCD)"),
		kubernetes: fs.String("kubernetes", kube, "the Kubernetes version of the runs (default: the catalog's; make: SMOKE_KUBERNETES)"),
	}
}

// ready is the checkout and the e2e test binary, absolute, once the binary
// and a Docker engine are there; bad input (exit 2) if not.
func (f selftestFlags) ready(ctx context.Context, fs *flag.FlagSet, name string) (repo, bin string, err error) {
	if fs.NArg() > 0 {
		return "", "", &runner.BadInput{Err: fmt.Errorf("%s: unexpected argument %q", name, fs.Arg(0))}
	}
	if repo, err = os.Getwd(); err != nil { // make runs it from the checkout
		return "", "", err
	}
	if bin, err = filepath.Abs(*f.e2e); err != nil || !exists(bin) {
		return "", "", &runner.BadInput{Err: fmt.Errorf("%s: %s missing: run make %s", name, *f.e2e, *f.e2e)}
	}
	if err := selftest.DockerUp(ctx); err != nil {
		return "", "", &runner.BadInput{Err: fmt.Errorf("%s: no Docker engine: run make smoke first (it installs and starts one)", name)}
	}
	return repo, bin, nil
}

// selftestStatus is a self-test's error as the CLI's exit status: 130 when
// it was interrupted.
func selftestStatus(err error) error {
	if errors.Is(err, selftest.ErrInterrupted) {
		return &exitStatus{130, err}
	}
	return err
}

// selftestFault is selftest fault (make fault-test).
func selftestFault(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	f := registerSelftest(fs, c, "fault-test")
	pause := fs.Duration("pause", 20*time.Second, "how long the API server is taken away (make: FAULT_PAUSE, seconds)")
	kind := fs.String("fault", "kill", "kill: kill kube-apiserver in the node again and again (reads fail at once); pause: freeze the node container (reads hang) (make: FAULT)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *kind != "kill" && *kind != "pause" {
		return &runner.BadInput{Err: fmt.Errorf("selftest fault: -fault %q: kill or pause", *kind)}
	}
	repo, bin, err := f.ready(ctx, fs, "fault-test")
	if err != nil {
		return err
	}
	return selftestStatus(selftest.Fault{E2E: bin, Repo: repo, Cluster: *f.cluster, ArgoCD: *f.argocd, Kubernetes: *f.kubernetes,
		Pause: *pause, Kind: *kind, Out: c.stdout}.Run(ctx))
}

// selftestInterrupt is selftest interrupt (make interrupt-test).
func selftestInterrupt(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	f := registerSelftest(fs, c, "interrupt-test")
	build := fs.String("build-argocd", "v2.14.5", "the at-build case's ArgoCD release: one no run builds to the end here (make: INTERRUPT_BUILD_TAG)")
	limit := fs.Duration("limit", 60*time.Second, "from the signal to the run's exit, at most (a parallel run: twice) (make: INTERRUPT_EXIT_LIMIT, seconds)")
	cases := fs.String("cases", "", "only these cases, comma-separated, of: "+fmt.Sprint(selftest.InterruptCaseNames())+" (make: INTERRUPT_CASES)")
	if err := parse(fs, args); err != nil {
		return err
	}
	names := matrix.ParseList(*cases)
	for _, n := range names {
		if !slices.Contains(selftest.InterruptCaseNames(), n) {
			return &runner.BadInput{Err: fmt.Errorf("selftest interrupt: no case %q (valid: %v)", n, selftest.InterruptCaseNames())}
		}
	}
	repo, bin, err := f.ready(ctx, fs, "interrupt-test")
	if err != nil {
		return err
	}
	return selftestStatus(selftest.Interrupt{E2E: bin, Repo: repo, Cluster: *f.cluster, BuildTag: *build, ArgoCD: *f.argocd,
		Kubernetes: *f.kubernetes, Limit: *limit, Cases: names, Out: c.stdout,
		DeleteCluster: func(ctx context.Context, name string) error { return deleteCluster(ctx, c, name) }}.Run(ctx))
}

// selftestMirror is selftest mirror (make mirror-check).
func selftestMirror(ctx context.Context, c cli, fs *flag.FlagSet, args []string) error {
	f := registerSelftest(fs, c, "mirror-check")
	name := fs.String("registry", "gitops-conformance-mirror-check", "the registry's container name (make: REGISTRY_NAME)")
	keep := fs.Bool("keep-registry", false, "keep the registry at the end (make: KEEP_REGISTRY=1)")
	reports := fs.String("reports", "reports", "the run's report goes under DIR/mirror-check-<time>/")
	if err := parse(fs, args); err != nil {
		return err
	}
	repo, bin, err := f.ready(ctx, fs, "mirror-check")
	if err != nil {
		return err
	}
	cache, err := runner.CacheDir()
	if err != nil {
		return err
	}
	return selftestStatus(selftest.Mirror{E2E: bin, Repo: repo, CacheDir: cache, Catalog: c.cat, Cluster: *f.cluster,
		Registry: *name, KeepRegistry: *keep, ArgoCD: *f.argocd, Kubernetes: *f.kubernetes, Reports: *reports,
		CLI: "bin/conformance", Out: c.stdout}.Run(ctx))
}
