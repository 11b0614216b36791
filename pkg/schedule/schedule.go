package schedule

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// InstallCost is what a cluster pays to run a release it does not have yet:
// loading its images and installing it (measured 60-120 s here, warm).
const InstallCost = 120 * time.Second

// ClusterCost is what a cluster pays to run a cell of another Kubernetes
// version: a new cluster in its place (ClusterCreate), then the release's
// install.
const ClusterCost = ClusterCreate + InstallCost

// DefaultCellCost is a cell's estimate when neither the reports nor the
// matrix say more.
const DefaultCellCost = 120 * time.Second

// Queue is a parallel run's cells, which its clusters take one at a time as
// each becomes free, so that none idles while another has a backlog (a
// deal made beforehand from estimates left one cluster idle for 40 minutes
// of a matrix run). It lives in the run's directory, one file per cell
// (its repeats stay together: k/N comes from one cluster): pending/<n>.<id>
// until a cluster takes it by renaming it to taken/<n>.<id>@<cluster>, which
// the file system does for one taker only; taken/ keeps who ran what.
type Queue struct {
	Dir      string `json:"-"`
	Clusters int    `json:"clusters"`
}

// Unit is one queued cell.
type Unit struct {
	ID       string `json:"id"` // the cell's report ID
	ArgoCD   string `json:"argocd"`
	Scenario string `json:"scenario"`
	Version  string `json:"componentVersion,omitempty"`
	// Kubernetes is the cluster's version the cell needs: another one is a
	// new cluster.
	Kubernetes string        `json:"kubernetes,omitempty"`
	Cost       time.Duration `json:"cost"` // all its repeats
	file       string
}

// NewQueue writes cells into a queue under dir, largest first, for clusters
// that take from it.
func NewQueue(dir string, clusters int, cells []matrix.Cell, repeat int, cost func(matrix.Cell) time.Duration) (*Queue, error) {
	q := &Queue{Dir: dir, Clusters: clusters}
	for _, sub := range []string{"pending", "taken"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	units := make([]Unit, len(cells))
	for i, c := range cells {
		units[i] = Unit{ID: c.Report().ID(), ArgoCD: c.ArgoCD.String(), Scenario: c.Scenario.Name, Version: c.ComponentVersion,
			Kubernetes: c.Kubernetes.Version, Cost: cost(c) * time.Duration(repeat)}
	}
	slices.SortStableFunc(units, func(a, b Unit) int { return cmp.Compare(b.Cost, a.Cost) })
	meta, _ := json.Marshal(q)
	if err := os.WriteFile(filepath.Join(dir, "queue.json"), meta, 0o644); err != nil {
		return nil, err
	}
	for i, u := range units {
		b, _ := json.Marshal(u)
		if err := os.WriteFile(filepath.Join(dir, "pending", fmt.Sprintf("%04d.%s", i+1, u.ID)), b, 0o644); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// OpenQueue opens the queue a parallel run made under dir.
func OpenQueue(dir string) (*Queue, error) {
	b, err := os.ReadFile(filepath.Join(dir, "queue.json"))
	if err != nil {
		return nil, fmt.Errorf("queue %q: %w", dir, err)
	}
	q := &Queue{}
	if err := json.Unmarshal(b, q); err != nil {
		return nil, fmt.Errorf("queue %q: %w", dir, err)
	}
	q.Dir = dir
	return q, nil
}

// Pending is what is left in the queue, largest first.
func (q *Queue) Pending() ([]Unit, error) {
	entries, err := os.ReadDir(filepath.Join(q.Dir, "pending"))
	if err != nil {
		return nil, err
	}
	var units []Unit
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(q.Dir, "pending", e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // taken since the listing
		}
		if err != nil {
			return nil, err
		}
		var u Unit
		if err := json.Unmarshal(b, &u); err != nil {
			return nil, fmt.Errorf("queue %q: %s: %w", q.Dir, e.Name(), err)
		}
		u.file = e.Name()
		units = append(units, u)
	}
	slices.SortStableFunc(units, func(a, b Unit) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), strings.Compare(a.file, b.file))
	})
	return units, nil
}

// Take gives cluster (its name, for the record) the next cell: after
// last (the cell it ran last, nil for none), one that shares most with it -
// the ArgoCD release installed, then the scenario's images, then the
// component version - largest first. Except when the largest cell left is
// more than the clusters' fair share of what is left by over an install:
// then no cluster may leave it for later, or it alone would make the run's
// tail, and the first free cluster takes it. ok is false when the queue is
// empty.
func (q *Queue) Take(cluster string, last *Unit) (u Unit, left int, ok bool, err error) {
	for {
		pending, err := q.Pending()
		if err != nil || len(pending) == 0 {
			return Unit{}, 0, false, err
		}
		next := q.choose(pending, last)
		err = os.Rename(filepath.Join(q.Dir, "pending", next.file), filepath.Join(q.Dir, "taken", next.file+"@"+cluster))
		if errors.Is(err, fs.ErrNotExist) {
			continue // another cluster took it first: look again
		}
		if err != nil {
			return Unit{}, 0, false, err
		}
		return next, len(pending) - 1, true, nil
	}
}

// choose picks from pending (largest first) what a cluster that ran last
// should take.
func (q *Queue) choose(pending []Unit, last *Unit) Unit {
	if last == nil {
		return pending[0]
	}
	var left time.Duration
	for _, u := range pending {
		left += u.Cost
	}
	n := time.Duration(max(q.Clusters, 1))
	switchCost := InstallCost
	if pending[0].Kubernetes != last.Kubernetes {
		switchCost = ClusterCost
	}
	if pending[0].Cost-left/n > switchCost {
		return pending[0]
	}
	best, bestScore := pending[0], -1
	for _, u := range pending { // largest first: a tie keeps the larger
		if s := affinity(*last, u); s > bestScore {
			best, bestScore = u, s
		}
	}
	return best
}

// affinity is what running u after last saves: a new cluster most (another
// Kubernetes version), then the ArgoCD install, then loading the scenario's
// images, then the component version's.
func affinity(last, u Unit) int {
	s := 0
	if u.Kubernetes == last.Kubernetes {
		s += 8
	}
	if u.ArgoCD == last.ArgoCD {
		s += 4
	}
	if u.Scenario == last.Scenario {
		s += 2
		if u.Version == last.Version {
			s++
		}
	}
	return s
}

// Costs are the cells' estimated times for one run: the median of the runs
// the reports under a directory measured for each (ERROR and SKIPPED left
// out: an error's time says nothing of the cell's), else the scenario's
// typical time from suites/matrix.yaml (seconds:), else DefaultCellCost.
type Costs struct {
	measured map[string][]float64
}

// NoCosts prices every cell at its scenario's typical time: what a
// machine with no report estimates (the docs quote it).
func NoCosts() *Costs { return &Costs{measured: map[string][]float64{}} }

// ReadCosts reads the measured times of the reports under dir.
func ReadCosts(dir string) *Costs {
	measured := map[string][]float64{}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "report.json"))
	for _, p := range paths {
		if fi, err := os.Lstat(filepath.Dir(p)); err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue // reports/latest is one of the others
		}
		rep, err := report.Load(p)
		if err != nil {
			continue
		}
		for _, c := range rep.Cells {
			for _, run := range c.Results() {
				if run.Outcome != report.Error && run.Outcome != report.Skipped && run.Duration > 0 {
					measured[c.ID()] = append(measured[c.ID()], run.Duration)
					if short := unversioned(c.ID()); short != c.ID() {
						measured[short] = append(measured[short], run.Duration)
					}
				}
			}
		}
	}
	for _, d := range measured {
		slices.Sort(d)
	}
	return &Costs{measured: measured}
}

// Of is a cell's estimate: its own measured runs, else the same cell's on
// any Kubernetes version (the version changes little of a cell's time), else
// the scenario's typical time.
func (k *Costs) Of(c matrix.Cell) time.Duration {
	if d := k.measured[c.Report().ID()]; len(d) > 0 {
		return time.Duration(d[len(d)/2] * float64(time.Second))
	}
	if d := k.measured[unversioned(c.Report().ID())]; len(d) > 0 {
		return time.Duration(d[len(d)/2] * float64(time.Second))
	}
	if c.Scenario.Seconds > 0 {
		return time.Duration(c.Scenario.Seconds) * time.Second
	}
	return DefaultCellCost
}

// unversioned is a cell ID without its Kubernetes version.
func unversioned(id string) string {
	short, _, _ := strings.Cut(id, report.KubeIDPrefix)
	return short
}

// Measured reports whether a cell's estimate comes from its measured runs.
func (k *Costs) Measured(c matrix.Cell) bool { return len(k.measured[c.Report().ID()]) > 0 }

// ClusterCreate is a new kind cluster to a Ready node and its controllers
// (about 90 s here, warm): what each Kubernetes version of a plan costs once.
const ClusterCreate = 90 * time.Second

// Estimate is what a plan costs, from Costs. A SKIPPED cell (Cell.Skip, or
// skipped by the caller's rule) costs nothing; each Kubernetes version is a
// cluster, and each ArgoCD release on it an install.
type Estimate struct {
	Cells, Repeat, Measured int
	Skipped                 int
	Total                   time.Duration // cluster time: every cell's runs
	Releases                int           // ArgoCD releases, each installed at least once
	// Clusters are the Kubernetes versions the cells run on, each a cluster
	// (one after the other on one); Installs the ArgoCD installs, one per
	// release per cluster.
	Clusters, Installs int
	Largest            time.Duration // the largest cell's runs, which one cluster runs alone
	Scenarios          []string      // in the plan's order
	ByScenario         map[string]time.Duration
}

// EstimateOf adds up a plan's cells; skip says why a cell will not run (""
// when it will), nil: only Cell.Skip.
func EstimateOf(cells []matrix.Cell, repeat int, costs *Costs, skip func(matrix.Cell) string) Estimate {
	e := Estimate{Repeat: repeat, ByScenario: map[string]time.Duration{}}
	releases := map[catalog.Release]bool{}
	kubes := map[string]bool{}
	installs := map[[2]string]bool{}
	for _, c := range cells {
		if c.Skip != "" || skip != nil && skip(c) != "" {
			e.Skipped++
			continue
		}
		e.Cells++
		d := costs.Of(c) * time.Duration(repeat)
		e.Total += d
		e.Largest = max(e.Largest, d)
		if costs.Measured(c) {
			e.Measured++
		}
		if _, ok := e.ByScenario[c.Scenario.Name]; !ok {
			e.Scenarios = append(e.Scenarios, c.Scenario.Name)
		}
		e.ByScenario[c.Scenario.Name] += d
		releases[c.ArgoCD] = true
		kubes[c.Kubernetes.Version] = true
		installs[[2]string{c.Kubernetes.Version, c.ArgoCD.String()}] = true
		for _, u := range c.Upgrades {
			installs[[2]string{c.Kubernetes.Version, u.String()}] = true
		}
	}
	e.Releases, e.Clusters, e.Installs = len(releases), len(kubes), len(installs)
	return e
}

// Wall is the estimated wall time on n clusters: the cluster time, the
// clusters and the installs shared out (each of n clusters makes its first
// cluster itself), but never less than the largest cell, a cluster and an
// install, which one cluster runs alone. It assumes the clusters do not
// slow each other down; on 2 cores they do, by the load.
func (e Estimate) Wall(n int) time.Duration {
	if e.Cells == 0 {
		return 0
	}
	n = max(min(n, e.Cells), 1)
	overhead := time.Duration(e.Installs)*InstallCost + time.Duration(e.Clusters)*ClusterCreate
	if n > 1 { // each further cluster is made, and installs its first release, beside the others
		overhead += time.Duration(n-1) * (ClusterCreate + InstallCost)
	}
	return max((e.Total+overhead)/time.Duration(n), e.Largest+InstallCost+ClusterCreate)
}
