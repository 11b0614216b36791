//go:build e2e

package suites

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	e2eenv "sigs.k8s.io/e2e-framework/pkg/env"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/types"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// The suite's state: e2e-framework's environment, and the run it carries.
var (
	testenv types.Environment
	suite   *Suite
)

var (
	flagScenarios = flag.String("scenario", "", "scenarios, comma-separated (default: all)")
	flagVariants  = flag.String("variant", "", "variants, comma-separated (default: all)")
	flagArgoCD    = flag.String("argocd", "", "ArgoCD tags, comma-separated (default: each scenario's axis)")
	flagVersions  = flag.String("version", "", "component versions, comma-separated (replace the variants')")
	flagMode      = flag.String("mode", "auto", "image source: auto, online or offline")
	flagRepeat    = flag.Int("repeat", 1, "run each cell N times and report k/N")
	flagKeep      = flag.Bool("keep", false, "keep the cluster at the end")
	flagCluster   = flag.String("cluster", "gitops-conformance", "kind cluster name")
	flagReports   = flag.String("reports", "", "reports directory (default: <repo>/reports)")
	flagCommand   = flag.String("command", "", "the command line that started the run, for the report")
)

func TestMain(m *testing.M) {
	flag.Parse()
	s, err := newSuite()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	suite = s
	s.Run.NeedsCluster = s.needsCluster
	ctx := env.WithRun(context.Background(), s.Run)
	testenv, err = e2eenv.NewWithContext(ctx, envconf.New())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testenv.Setup(env.Preflight(), env.CreateCluster())
	testenv.Finish(s.finish(), env.DestroyCluster())

	// An interrupt deletes what the run created (unless -keep) and still
	// writes the report of the cells that finished.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		s.Run.Logf("%s: cleaning up (a second signal kills at once)", sig)
		signal.Reset()
		cleanup, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		s.writeReport("interrupted by " + sig.String())
		s.Run.DeleteLeftovers(cleanup)
		os.Exit(130)
	}()
	os.Exit(testenv.Run(m))
}

func newSuite() (*Suite, error) {
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	data, err := Matrix()
	if err != nil {
		return nil, err
	}
	mode, err := images.ParseMode(*flagMode)
	if err != nil {
		return nil, err
	}
	if *flagRepeat < 1 {
		return nil, fmt.Errorf("repeat %d: must be 1 or more", *flagRepeat)
	}
	cells, err := data.Plan(cat, matrix.Selection{Scenarios: matrix.ParseList(*flagScenarios), Variants: matrix.ParseList(*flagVariants), ArgoCD: matrix.ParseList(*flagArgoCD), Versions: matrix.ParseList(*flagVersions)})
	if err != nil {
		return nil, err
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		return nil, err
	}
	cache := os.Getenv("GITOPS_CONFORMANCE_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return nil, err
		}
		cache = filepath.Join(base, "gitops-conformance")
	}
	reports := *flagReports
	if reports == "" {
		reports = filepath.Join(repo, "reports")
	}
	runID, err := reserveRunDir(reports, time.Now().UTC().Format("20060102-150405"))
	if err != nil {
		return nil, err
	}
	return &Suite{
		Run: &env.Run{Repo: repo, CacheDir: cache, Catalog: cat, Mode: mode, Keep: *flagKeep,
			Cluster: *flagCluster, Out: os.Stdout},
		Data: data, Cells: cells, Repeat: *flagRepeat, Dir: filepath.Join(reports, runID),
		Report: &report.Report{RunID: runID, Started: time.Now().UTC(), Kubernetes: cat.Kubernetes.Version, Command: *flagCommand},
	}, nil
}

func TestMatrix(t *testing.T) {
	suite.Run.Logf("plan: %d cell(s) x %d run(s); report %s", len(suite.Cells), suite.Repeat, suite.Dir)
	for _, c := range suite.Cells {
		t.Run(c.Report().ID(), func(t *testing.T) { suite.runCell(t, c) })
	}
}

// reserveRunDir creates reports/<id>, or <id>-2, -3... when a run started in
// the same second (two clusters side by side) took it.
func reserveRunDir(reports, id string) (string, error) {
	if err := os.MkdirAll(reports, 0o755); err != nil {
		return "", err
	}
	for n := 1; ; n++ {
		try := id
		if n > 1 {
			try = fmt.Sprintf("%s-%d", id, n)
		}
		err := os.Mkdir(filepath.Join(reports, try), 0o755)
		if err == nil {
			return try, nil
		}
		if !os.IsExist(err) {
			return "", err
		}
	}
}
