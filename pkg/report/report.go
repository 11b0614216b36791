package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Outcome is a cell's verdict.
type Outcome string

// The outcomes a cell can have; FLAKY is for repeated runs that disagree.
const (
	Reproduced    Outcome = "REPRODUCED"
	NotReproduced Outcome = "NOT_REPRODUCED"
	Mitigated     Outcome = "MITIGATED"
	NotMitigated  Outcome = "NOT_MITIGATED"
	Skipped       Outcome = "SKIPPED"
	Error         Outcome = "ERROR"
	Flaky         Outcome = "FLAKY"
	// make upgrade-check's verdicts on an Application through an ArgoCD
	// upgrade: nothing changed that ArgoCD acts on; the render or the diff
	// changed; a sync, a hook or the deletion no longer works.
	Safe    Outcome = "SAFE"
	Changed Outcome = "CHANGED"
	Broken  Outcome = "BROKEN"
)

// Outcomes are every outcome, in the order a summary counts them.
var Outcomes = []Outcome{Reproduced, NotReproduced, Mitigated, NotMitigated, Safe, Changed, Broken, Flaky, Skipped, Error}

// Race is an expectation, never an outcome: runs on a cluster measured the
// cell going both ways, a race in the cluster itself. Either verdict, or FLAKY
// when repeated runs disagree, is as expected, and k/N is the measurement; an
// ERROR still fails. A race's orderings belong in variants that stage each one
// and expect a single outcome.
const Race Outcome = "RACE"

// Allows reports whether a cell whose expectation is e may come out as o.
func (e Outcome) Allows(o Outcome) bool {
	if e != Race {
		return o == e
	}
	switch o {
	case Flaky, Reproduced, NotReproduced, Mitigated, NotMitigated, Safe, Changed, Broken:
		return true
	}
	return false
}

// Cell is one scenario x variant x ArgoCD version x component version x
// Kubernetes version.
type Cell struct {
	Scenario         string `json:"scenario"`
	Variant          string `json:"variant"`
	ArgoCD           string `json:"argocd"`
	Component        string `json:"component"`
	ComponentVersion string `json:"component_version"`
	// Kubernetes is the version the cell ran on; a report written before
	// cells carried it has the run's (Load fills it in).
	Kubernetes  string  `json:"kubernetes,omitempty"`
	Outcome     Outcome `json:"outcome"`
	Expected    Outcome `json:"expected"`
	ExpectedWhy string  `json:"expected_why,omitempty"` // the measurement the expectation rests on
	Unexpected  bool    `json:"unexpected"`
	// Unmeasured: no expectation measured on a cluster covers this cell
	// (scenario, variant, ArgoCD release, component version): its outcome is
	// news, not a regression check.
	Unmeasured   bool     `json:"unmeasured,omitempty"`
	Reason       string   `json:"reason"`
	Duration     float64  `json:"duration_seconds"`
	Evidence     string   `json:"evidence,omitempty"`
	Upstream     string   `json:"upstream,omitempty"`
	Runs         []Run    `json:"runs,omitempty"`
	Observations []string `json:"observations,omitempty"`
	// Explained are, of a make upgrade-check verdict, the behaviour changes
	// of ArgoCD its reason names (pkg/upgrade/changes' ids).
	Explained []string `json:"explained,omitempty"`
	// Unexplained: a make upgrade-check CHANGED by a difference none of
	// those explains: what a team reads first.
	Unexplained bool `json:"unexplained,omitempty"`
	// UpgradedTo is the release a cell upgraded ArgoCD to, if it did (make
	// upgrade-check's TO).
	UpgradedTo string `json:"upgraded_to,omitempty"`
	// ArgoCDTested is the Kubernetes minors the cell's ArgoCD release was
	// tested on, as its own docs/operator-manual/tested-kubernetes-versions.md
	// says ("v1.32-v1.35"); Tested whether the cell's Kubernetes is among
	// them: "in range", "outside", or "could not tell: why".
	ArgoCDTested string `json:"argocd_tested_kubernetes,omitempty"`
	Tested       string `json:"argocd_tested,omitempty"`
	// Phases is where a single run's time went (seconds by phase: build,
	// cluster, install, scenario, evidence); a repeated cell's are its runs'.
	Phases map[string]float64 `json:"phases,omitempty"`
}

// The answers of Cell.Tested.
const (
	TestedIn      = "in range"
	TestedOutside = "outside"
)

// Outside says whether the cell ran on a Kubernetes version its ArgoCD
// release was not tested on (marked, neither hidden nor failed).
func (c Cell) Outside() bool { return c.Tested == TestedOutside }

// Run is one repetition of a cell (make matrix REPEAT=N).
type Run struct {
	Outcome  Outcome `json:"outcome"`
	Reason   string  `json:"reason"`
	Duration float64 `json:"duration_seconds"`
	Evidence string  `json:"evidence,omitempty"` // the run's own evidence directory, relative to the report
	// Phases is where the run's time went, in seconds by phase.
	Phases map[string]float64 `json:"phases,omitempty"`
}

// ID names a cell in paths and test names: scenario_variant_argocd
// [_component version][_k8s-<Kubernetes version>].
func (c Cell) ID() string {
	id := c.Scenario + "_" + c.Variant + "_" + c.ArgoCD
	if c.ComponentVersion != "" {
		id += "_" + c.ComponentVersion
	}
	if c.Kubernetes != "" {
		id += KubeIDPrefix + c.Kubernetes
	}
	return id
}

// KubeIDPrefix separates a cell ID's Kubernetes version from the rest.
const KubeIDPrefix = "_k8s-"

// Report is one run.
type Report struct {
	RunID    string    `json:"run_id"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	Offline  bool      `json:"offline"`
	// RegistryMirror is the registry the nodes pulled the upstream names
	// through (online with REGISTRY_MIRROR), "" for none.
	RegistryMirror string   `json:"registry_mirror,omitempty"`
	Kubernetes     string   `json:"kubernetes"`
	Command        string   `json:"command,omitempty"`
	Notes          []string `json:"notes,omitempty"`
	Cells          []Cell   `json:"cells"`
	// Stopped says why the run stopped before its end (a signal, the time
	// limit, a setup that failed); NotRun lists the cells it never started.
	Stopped string `json:"stopped,omitempty"`
	NotRun  []Cell `json:"not_run,omitempty"`
	// UnmeasuredFails: the user asked that a cell with no measured
	// expectation fail the run (by default it is listed, not a failure).
	UnmeasuredFails bool `json:"unmeasured_fails,omitempty"`
	// Sources are the runs a merged report was made from (see Merge); empty for a run.
	Sources []Source `json:"sources,omitempty"`
	// ArgoCDSupport says, for the ArgoCD releases of the cells, whether
	// upstream still supported their minor line when the run read it: which
	// rows matter for a production upgrade. Nil in reports made before.
	ArgoCDSupport *Support `json:"argocd_support,omitempty"`
	// Estimate is what the run's plan said it would cost, before its first
	// build: make plan sets it against what the run took.
	Estimate *Estimate `json:"estimate,omitempty"`
	// Phases is where the run's own time went outside its cells (seconds:
	// "setup" is preflight, the first builds and the first cluster).
	Phases map[string]float64 `json:"phases,omitempty"`

	// Dir is the directory the report was loaded from (LoadDir); cells'
	// evidence paths are relative to it. Not part of report.json.
	Dir string `json:"-"`
}

// Estimate is a plan's price, in seconds.
type Estimate struct {
	WarmSeconds float64 `json:"warm_seconds"`
	ColdSeconds float64 `json:"cold_seconds"`
	// Builds are the builds the plan found still needed.
	Builds []string `json:"builds,omitempty"`
	// Scenarios is each scenario's cell time (its runs, no install).
	Scenarios map[string]float64 `json:"scenarios,omitempty"`
	Parallel  int                `json:"parallel,omitempty"`
}

// Support is, as a run read it from the module proxy's listing, which ArgoCD
// minor lines upstream supports and how each release of the run stands.
type Support struct {
	// Lines upstream supports, newest first: "3.6 (newest v3.6.1)".
	Lines []string `json:"supported_lines,omitempty"`
	// Releases maps each release's tag to "supported", "end-of-life" or
	// "could not tell".
	Releases map[string]string `json:"releases"`
	// Why the run could not tell (a listing failed); "" when it could.
	Why string `json:"could_not_tell,omitempty"`
}

// Text is the support in one line: each release and how it stands, then the
// lines upstream supports (or why the run could not tell).
func (s *Support) Text() string {
	if s == nil || len(s.Releases) == 0 {
		return ""
	}
	tags := slices.SortedFunc(maps.Keys(s.Releases), catalog.CompareTags)
	parts := make([]string, len(tags))
	for i, tag := range tags {
		parts[i] = tag + " " + s.Releases[tag]
	}
	text := "ArgoCD " + strings.Join(parts, ", ")
	if len(s.Lines) > 0 {
		return text + " (upstream supports " + strings.Join(s.Lines, ", ") + ": the newest minor lines the module proxy listed)"
	}
	return text + " (" + s.Why + ")"
}

// NoMeasurement is what a report says of a cell no measured expectation covers.
const NoMeasurement = "no measured expectation"

// Failed reports whether the run was interrupted or any cell fails it.
func (r *Report) Failed() bool {
	if r.Stopped != "" {
		return true
	}
	for i := range r.Cells {
		if r.Fails(&r.Cells[i]) {
			return true
		}
	}
	return false
}

// Fails reports whether c fails the run: it needs a look, or it has no
// measured expectation and the run was asked to fail on those.
func (r *Report) Fails(c *Cell) bool {
	return c.NeedsLook() || r.UnmeasuredFails && c.Unmeasured
}

// NeedsLook reports a cell that fails any run: unexpected, ERROR, or FLAKY
// where its expectation does not allow it (only RACE does).
func (c *Cell) NeedsLook() bool {
	return c.Unexpected || c.Outcome == Error || c.Outcome == Flaky && !c.Expected.Allows(Flaky)
}

// Unmeasured lists the cells no measured expectation covers.
func (r *Report) Unmeasured() []*Cell {
	var cells []*Cell
	for i := range r.Cells {
		if r.Cells[i].Unmeasured {
			cells = append(cells, &r.Cells[i])
		}
	}
	return cells
}

// ExpectedText is the expected column: the outcome, or that none was measured.
func (c *Cell) ExpectedText() string {
	if c.Unmeasured {
		return NoMeasurement
	}
	return string(c.Expected)
}

// Settle fills in Unexpected and folds repeated runs: a cell whose runs
// disagree is FLAKY with k/N in its reason, never retried into a pass. A run
// that ended ERROR makes the cell ERROR: a run that failed (or was stopped)
// says nothing about the cell, so it is no disagreement.
func (c *Cell) Settle() {
	if len(c.Runs) > 0 {
		counts := map[Outcome]int{}
		for _, r := range c.Runs {
			counts[r.Outcome]++
		}
		first := c.Runs[0]
		c.Outcome, c.Reason = first.Outcome, first.Reason
		var total float64
		for _, r := range c.Runs {
			total += r.Duration
		}
		c.Duration = total
		if n := counts[Error]; n > 0 && len(counts) > 1 {
			i := slices.IndexFunc(c.Runs, func(r Run) bool { return r.Outcome == Error })
			c.Outcome = Error
			c.Reason = fmt.Sprintf("%d/%d ERROR, run %d: %s; %s", n, len(c.Runs), i+1, c.Runs[i].Reason, summarize(counts))
		} else if len(counts) > 1 {
			c.Outcome = Flaky
			c.Reason = fmt.Sprintf("%d/%d %s; %s", counts[first.Outcome], len(c.Runs), first.Outcome, summarize(counts))
		} else if len(c.Runs) > 1 {
			c.Reason = fmt.Sprintf("%d/%d %s; %s", len(c.Runs), len(c.Runs), first.Outcome, first.Reason)
		}
	}
	c.Unexpected = c.Expected != "" && !c.Expected.Allows(c.Outcome)
	// a cell that did not run (a component's minimum Kubernetes, a source
	// not provided) measured nothing to check: its reason says why, and it
	// is not listed as a new outcome
	c.Unmeasured = c.Expected == "" && c.Outcome != Skipped
}

// Tally is the cell's outcome as its runs ended: the outcome of a single
// run, else each outcome's k/N ("NOT_MITIGATED 4/10, MITIGATED 6/10").
func (c *Cell) Tally() string {
	if len(c.Runs) == 0 {
		return string(c.Outcome)
	}
	counts := map[Outcome]int{}
	var order []Outcome
	for _, r := range c.Runs {
		if counts[r.Outcome] == 0 {
			order = append(order, r.Outcome)
		}
		counts[r.Outcome]++
	}
	parts := make([]string, len(order))
	for i, o := range order {
		parts[i] = fmt.Sprintf("%s %d/%d", o, counts[o], len(c.Runs))
	}
	return strings.Join(parts, ", ")
}

func summarize(counts map[Outcome]int) string {
	s := ""
	for _, o := range []Outcome{Reproduced, NotReproduced, Mitigated, NotMitigated, Skipped, Error} {
		if n := counts[o]; n > 0 {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%s %d", o, n)
		}
	}
	return s
}

// Save writes report.json into dir (made if need be), the disagreements
// noted first: the data, which pkg/report/render renders.
func (r *Report) Save(dir string) error {
	r.noteDisagreements()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// Load reads a report.json.
func Load(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load report: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("load report %q: %w", path, err)
	}
	for _, cells := range [][]Cell{r.Cells, r.NotRun} {
		for i := range cells {
			if cells[i].Kubernetes == "" {
				cells[i].Kubernetes = r.Kubernetes
			}
		}
	}
	return &r, nil
}

// LoadDir reads dir/report.json and remembers dir (made absolute) as the
// report's Dir, which its evidence paths are relative to.
func LoadDir(dir string) (*Report, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("load report: %w", err)
	}
	r, err := Load(filepath.Join(abs, "report.json"))
	if err != nil {
		return nil, err
	}
	r.Dir = abs
	return r, nil
}
