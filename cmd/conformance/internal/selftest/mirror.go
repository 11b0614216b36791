package selftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/cmd/conformance/internal/e2erun"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/internal/registry"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
)

// Mirror is the online pull path, run here for real (conformance selftest
// mirror, make mirror-check). With no registry reachable from this machine,
// the suite's own registry stands in for the user's mirror:
//  1. start the local registry (images/registry) on the kind network;
//  2. push the suite's offline builds of the smoke release's images
//     (images/argocd/build.sh: built first when not cached) under their
//     upstream paths;
//  3. run the smoke cell (kubeovn-argocd bug) online with the registry as
//     -registry-mirror and the suite's node image, so containerd on the
//     node pulls quay.io/argoproj/argocd and docker.io/library/redis
//     through the mirror (nothing is kind-loaded online);
//  4. check the report (the cell as expected, registry_mirror set) and the
//     pulls: containerd's PullImage lines and the registry's access log
//     (requests from containerd, ?ns=<upstream>), written to
//     <report>/mirror-pulls.txt with the timings.
//
// The registry is removed at the end, also after a failure or a Ctrl-C
// (unless KeepRegistry); its data stays in the cache directory, so the next
// push sends only what it lacks. The cluster goes with the run.
type Mirror struct {
	E2E, Repo    string
	CacheDir     string
	Catalog      *catalog.Catalog
	Cluster      string
	Registry     string // the registry's container name
	KeepRegistry bool
	ArgoCD       string // the smoke's release
	Kubernetes   string
	Reports      string // the run's report goes under Reports/mirror-check-<time>/
	CLI          string // how a user calls the CLI, for the line that says how to remove a kept registry
	Out          io.Writer
}

// Run runs the check: nil when it passed; ErrInterrupted after a Ctrl-C.
func (m Mirror) Run(ctx context.Context) (err error) {
	log := Log{Name: "mirror-check", Out: m.Out}
	defer func() {
		if err != nil && !errors.Is(err, ErrInterrupted) {
			log.Printf("FAIL: %v", err)
		}
	}()
	// a Ctrl-C before the run ends what runs now (the build, a push)
	ctx, in := e2erun.Watch(ctx)
	defer in.Stop()
	interrupted := in.Interrupted
	defer func() {
		if m.KeepRegistry {
			log.Printf("registry %s kept (KEEP_REGISTRY=1); remove it with: %s registry stop -name %s", m.Registry, m.CLI, m.Registry)
		} else if stopErr := registry.Stop(context.WithoutCancel(ctx), m.Registry); stopErr != nil {
			log.Printf("could not remove the registry: docker rm -f %s (%v)", m.Registry, stopErr)
		}
		if interrupted() {
			log.Printf("interrupted")
			err = ErrInterrupted
		}
	}()

	t0 := time.Now()
	b := &images.Builder{Repo: m.Repo, CacheDir: m.CacheDir, Catalog: m.Catalog, Out: m.Out}
	image, err := b.Registry(ctx)
	if err != nil {
		return err
	}
	local, err := registry.Start(ctx, m.Registry, image, registry.DataDir(m.CacheDir, m.Registry), m.Out)
	if err != nil {
		return err
	}
	mirror := local.Mirror.String()
	tStart := time.Since(t0)

	t1 := time.Now()
	buildLog := filepath.Join(m.CacheDir, "logs", "mirror-check-build.log")
	log.Printf("the smoke release's images (argocd %s): built or found by images/argocd/build.sh (its output: %s)", m.ArgoCD, buildLog)
	imgs, err := m.argocdImages(ctx, buildLog)
	if err != nil {
		return err
	}
	tBuild := time.Since(t1)

	t2 := time.Now()
	for _, img := range imgs {
		start := time.Now()
		if err := local.PushImage(ctx, img); err != nil {
			return fmt.Errorf("push to the registry: %w", err)
		}
		fmt.Fprintf(m.Out, "registry %s: pushed %s in %.1fs\n", m.Registry, img, time.Since(start).Seconds())
	}
	tPush := time.Since(t2)

	t3 := time.Now()
	root, err := filepath.Abs(filepath.Join(m.Reports, "mirror-check-"+time.Now().UTC().Format("20060102-150405")))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	log.Printf("the smoke cell, online through REGISTRY_MIRROR=%s (cluster %s; report under %s)", mirror, m.Cluster, root)
	run := e2erun.E2E(m.E2E, m.Repo, filepath.Join(root, "run.log"), []string{
		"-test.count=1", "-test.timeout", "40m", "-test.run", "TestMatrix",
		"-scenario", "kubeovn-argocd", "-variant", "bug", "-argocd", m.ArgoCD, "-kubernetes", m.Kubernetes, "-mode", "online",
		"-registry-mirror", mirror, "-node-image", "built", "-cluster", m.Cluster, "-command", "make mirror-check", "-reports", root, "-costs", filepath.Dir(root)}...)
	run.Echo = m.Out
	if err := in.Start(run); err != nil {
		return err
	}
	rc, err := run.Wait()
	if err != nil {
		return err
	}
	tRun := time.Since(t3)
	if rc == 130 || interrupted() {
		return ErrInterrupted
	}
	r, err := e2erun.Report(root)
	if err != nil {
		return fmt.Errorf("the run exited %d and wrote no report under %s: %w", rc, root, err)
	}
	if rc != 0 {
		return fmt.Errorf("the run exited %d; see %s", rc, filepath.Join(r.Dir, "report.md"))
	}

	// The evidence: what containerd pulled and from where, and what the registry served.
	nodeLog := findFile(filepath.Join(r.Dir, "cluster-logs"), "containerd.log")
	if nodeLog == "" {
		return fmt.Errorf("no containerd.log under %s", filepath.Join(r.Dir, "cluster-logs"))
	}
	containerd, err := os.ReadFile(nodeLog)
	if err != nil {
		return err
	}
	served, err := local.Logs(ctx)
	if err != nil {
		return fmt.Errorf("the registry's log: %w", err)
	}
	pulls := filepath.Join(r.Dir, "mirror-pulls.txt")
	evidence := fmt.Sprintf("# make mirror-check %s: REGISTRY_MIRROR=%s, argocd %s\n", time.Now().UTC().Format(time.RFC3339), mirror, m.ArgoCD) +
		fmt.Sprintf("# seconds: registry start %d, images (build or cache) %d, push %d, run (cluster, install, cell, delete) %d\n",
			secs(tStart), secs(tBuild), secs(tPush), secs(tRun)) +
		fmt.Sprintf("## containerd on the node (%s): PullImage and the host each pull resolved\n", nodeLog) +
		ContainerdPulls(string(containerd)) +
		"## the registry's access log: requests from containerd\n" +
		ContainerdRequests(served)
	if err := os.WriteFile(pulls, []byte(evidence), 0o644); err != nil {
		return err
	}
	if err := MirrorProblem(evidence, imgs, mirror, r); err != nil {
		return fmt.Errorf("%w (see %s)", err, pulls)
	}
	log.Printf("ok: %s: %s", r.Dir, firstLine(r.Dir, "| kubeovn-argocd"))
	log.Printf("ok: pulled through %s: %s (%d PullImage calls, %d registry requests; %s)", mirror, strings.Join(imgs, " "),
		strings.Count(evidence, "returns image reference"), strings.Count(evidence, "containerd/"), pulls)
	log.Printf("seconds: registry start %d, images %d, push %d, run %d, total %d", secs(tStart), secs(tBuild), secs(tPush), secs(tRun), secs(time.Since(t0)))
	return nil
}

// argocdImages builds (or finds cached) the smoke release's images, the
// recipe's output into buildLog.
func (m Mirror) argocdImages(ctx context.Context, buildLog string) ([]string, error) {
	if err := os.MkdirAll(filepath.Dir(buildLog), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(buildLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := &images.Builder{Repo: m.Repo, CacheDir: m.CacheDir, Catalog: m.Catalog, Out: f}
	imgs, err := b.Component(ctx, "argocd", m.ArgoCD)
	if err != nil {
		return nil, fmt.Errorf("images/argocd/build.sh %s: %s (its output: %s)", m.ArgoCD, images.Cause(err), buildLog)
	}
	return imgs, nil
}

func secs(d time.Duration) int { return int(d.Seconds()) }

var (
	pullLine = regexp.MustCompile(`msg="PullImage \\"[^"]*\\"( returns|")|msg=resolving host=`)
	logTime  = regexp.MustCompile(`^.*time="([^"]*)".*msg=`)
	// a request in the registry's access log: "<client ip> - ..."
	request       = regexp.MustCompile(`^[0-9a-f.:]+ - `)
	manifestByCRI = regexp.MustCompile(`/manifests/.*"containerd/`)
	quayByCRI     = regexp.MustCompile(`manifests/.*\?ns=quay\.io .*containerd/`)
)

// ContainerdPulls are containerd's log lines about pulls (PullImage, and
// the host each resolved), each as "<time> <message>".
func ContainerdPulls(log string) string {
	var b strings.Builder
	for _, l := range strings.Split(log, "\n") {
		if pullLine.MatchString(l) {
			b.WriteString(logTime.ReplaceAllString(l, "$1 ") + "\n")
		}
	}
	return b.String()
}

// ContainerdRequests are the registry's access-log lines for manifests
// containerd asked for.
func ContainerdRequests(log string) string {
	var b strings.Builder
	for _, l := range strings.Split(log, "\n") {
		if request.MatchString(l) && manifestByCRI.MatchString(l) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// MirrorProblem says what the evidence lacks for the pull path to count as
// tested: each image pulled by containerd, a pull resolved at the mirror, a
// quay.io pull served by the registry to containerd, and the report naming
// the mirror; nil when nothing.
func MirrorProblem(evidence string, imgs []string, mirror string, r *report.Report) error {
	for _, img := range imgs {
		if !strings.Contains(evidence, `PullImage \"`+img+`\" returns image reference`) {
			return fmt.Errorf("containerd did not pull %s", img)
		}
	}
	if !strings.Contains(evidence, `resolving host="`+mirror+`"`) {
		return fmt.Errorf("containerd resolved no pull at %s", mirror)
	}
	if !quayByCRI.MatchString(evidence) {
		return errors.New("the registry served no quay.io pull to containerd")
	}
	if r.RegistryMirror != mirror {
		return fmt.Errorf("report.json does not name the mirror %s (registry_mirror %q)", mirror, r.RegistryMirror)
	}
	return nil
}

// findFile is the first file named name under dir, or "".
func findFile(dir, name string) string {
	found := ""
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && found == "" && !d.IsDir() && d.Name() == name {
			found = p
		}
		return nil
	})
	return found
}

// firstLine is the first line of dir's report.md that starts with prefix.
func firstLine(dir, prefix string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
