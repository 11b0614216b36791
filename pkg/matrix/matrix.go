package matrix

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/report"
)

// Data is suites/matrix.yaml.
type Data struct {
	Scenarios    []Scenario    `json:"scenarios"`
	Expectations []Expectation `json:"expectations"`
}

// Scenario is one reproduction and its variants.
type Scenario struct {
	Name      string `json:"name"`
	Component string `json:"component"`
	Upstream  string `json:"upstream"`
	Summary   string `json:"summary"`
	// Title is the bug in one line: the README's table of scenarios (make
	// docs) shows it.
	Title  string   `json:"title,omitempty"`
	ArgoCD []string `json:"argocd,omitempty"` // default axis; empty: the catalog's
	// Kubernetes is the scenario's default Kubernetes axis (empty: the
	// catalog's default version), chosen for what the scenario tests, and
	// KubernetesWhy says why.
	Kubernetes    []string  `json:"kubernetes,omitempty"`
	KubernetesWhy string    `json:"kubernetesWhy,omitempty"`
	Variants      []Variant `json:"variants"`
	OfflineSkip   string    `json:"offlineSkip,omitempty"` // why the scenario cannot run offline
	// Seconds is a typical cell's wall time (one run, warm caches, on the
	// 2-core machine the suite is developed on): what a parallel run orders
	// its queue by, and make plan estimates with, until the reports hold
	// measured times.
	Seconds int `json:"seconds,omitempty"`
	// Quick is the scenario's quick tier (TIER=quick, make e2e's default):
	// the cells that tell its story, sized to answer in minutes, with why.
	// Without one, the quick tier is every variant's newest component
	// version on its full ArgoCD axis and the default Kubernetes.
	Quick *Tier `json:"quick,omitempty"`
	// UserChart marks a scenario made at run time for a chart the user
	// names (make conform): its component is that chart, not one of the
	// catalog's, and its version the chart's, which no module proxy is asked about.
	UserChart bool `json:"-"`
	// ReplayCommand, when set, is the command a cell of this scenario is run
	// again with, before its CHECKS= and ARGOCD= (Cell.Replay); else make e2e.
	ReplayCommand string `json:"-"`
	// Builds are the image recipes (component@version, images/<component>/build.sh)
	// its cells need besides their component's: what the cluster runs for
	// them (make upgrade-check's metrics-server), prebuilt offline beside the
	// node image and priced by the plan.
	Builds []string `json:"-"`

	versions []string // the selection's component versions this scenario runs, if any
}

// Variant is the bug, its minimal form or one mitigation, as
// suites/matrix.yaml declares it: every variant a cell carries comes from
// there (Plan refuses a name the scenario does not declare). It runs on
// ComponentVersion, or on each of ComponentVersions (one cell per version)
// when that list is given.
type Variant struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
	// Mitigates says the variant applies a mitigation (judged MITIGATED or
	// NOT_MITIGATED). matrix.yaml says so of every variant but Bug and
	// Minimal, and Parse refuses one that does not: no variant is a
	// mitigation by accident of its name.
	Mitigates         bool     `json:"mitigation,omitempty"`
	ComponentVersion  string   `json:"componentVersion,omitempty"`
	ComponentVersions []string `json:"componentVersions,omitempty"`
	// Kubernetes, when set, is the variant's own default Kubernetes axis
	// (the scenario's otherwise): the variants whose finding depends on the
	// version run on more of them; KubernetesWhy says why.
	Kubernetes    []string `json:"kubernetes,omitempty"`
	KubernetesWhy string   `json:"kubernetesWhy,omitempty"`
	// KubernetesOnlyFor narrows a version of that axis to some component
	// versions: there only they run (Knative 1.23 on its own minimum,
	// v1.34.4, where the older releases have nothing to add), unless the
	// user names the Kubernetes version.
	KubernetesOnlyFor map[string][]string `json:"kubernetesOnlyFor,omitempty"`
	// ArgoCD, when set, is the variant's own default ArgoCD axis (the
	// scenario's otherwise): a scenario whose other variants do not involve
	// ArgoCD runs those on one release, and the variants where ArgoCD acts on
	// more of them; ArgoCDWhy says why.
	ArgoCD    []string `json:"argocd,omitempty"`
	ArgoCDWhy string   `json:"argocdWhy,omitempty"`
	// ArgoCDUpgrades are releases the variant upgrades ArgoCD to in place,
	// in order; a cell gets those newer than its own (Cell.Upgrades). In a
	// mitigation the upgrade is the mitigation: a cell left without one (its
	// release as new as them, ARGOCD= naming it) is SKIPPED saying so.
	ArgoCDUpgrades []string `json:"argocdUpgrades,omitempty"`
	// Quick, when set, is the variant's own quick tier: its ArgoCD releases
	// or component versions where they differ from the scenario's.
	Quick *Tier `json:"quick,omitempty"`
}

// Tier is a tier's axes, where they narrow the full one: empty fields take
// the scenario's quick tier, then the defaults Plan names.
type Tier struct {
	ArgoCD []string `json:"argocd,omitempty"`
	// Kubernetes: the scenario's only (a quick tier runs on one or two
	// clusters); empty: the catalog's default version.
	Kubernetes []string `json:"kubernetes,omitempty"`
	// ComponentVersions a variant keeps of its own; none of them: its newest.
	ComponentVersions []string `json:"componentVersions,omitempty"`
	Why               string   `json:"why,omitempty"`
}

// The tiers a selection runs: TierQuick each variant on the cells of its
// scenario's quick tier, TierFull every axis.
const (
	TierQuick = "quick"
	TierFull  = "full"
)

// Tiers are the valid tier names.
var Tiers = []string{TierQuick, TierFull}

// The variants every scenario may have under these names: Bug runs without
// a mitigation, and Minimal is the bug reproduced with a minimal fixture in
// place of the third-party project; both are judged REPRODUCED or
// NOT_REPRODUCED. Every other variant is a mitigation, and says so in
// matrix.yaml (mitigation: true).
const (
	Bug     = "bug"
	Minimal = "minimal"
)

// Mitigation reports whether the variant applies a mitigation, as
// matrix.yaml says (Parse checked it against the name).
func (v Variant) Mitigation() bool { return v.Mitigates }

// Versions are the component versions the variant runs on.
func (v Variant) Versions() []string {
	if len(v.ComponentVersions) > 0 {
		return v.ComponentVersions
	}
	return []string{v.ComponentVersion}
}

// Expectation says what outcome a set of cells had when they were measured;
// the first match wins. Variant may be empty or "*" (every variant) or
// comma-separated names. ArgoCD and ComponentVersion name exactly the
// releases measured, comma-separated (no globs: a release nobody ran has no
// expectation, and its cell says so). Runs are the run ids the outcome was
// read in (run ids start with the date). A SKIPPED expectation (a cell that
// cannot run, e.g. offline) needs neither. RACE is for cells measured going
// both ways (report.Race): the runs are where each outcome was seen.
type Expectation struct {
	Scenario         string `json:"scenario"`
	Variant          string `json:"variant,omitempty"`
	ArgoCD           string `json:"argocd,omitempty"`
	ComponentVersion string `json:"componentVersion,omitempty"`
	// Kubernetes names the Kubernetes versions measured, comma-separated.
	Kubernetes string         `json:"kubernetes,omitempty"`
	Offline    *bool          `json:"offline,omitempty"`
	Expected   report.Outcome `json:"expected"`
	Runs       []string       `json:"runs,omitempty"`
	Why        string         `json:"why,omitempty"`
}

// runID is a run's id: its start, YYYYMMDD-HHMMSS, and a suffix when two
// runs started in the same second.
var runID = regexp.MustCompile(`^\d{8}-\d{6}(-\d+)?$`)

// Cell is one thing to run.
type Cell struct {
	Scenario         Scenario
	Variant          Variant
	ArgoCD           catalog.Release
	ComponentVersion string
	// Kubernetes is the version of the cluster the cell runs on.
	Kubernetes catalog.KubeVersion
	// Upgrades are the variant's ArgoCDUpgrades newer than ArgoCD, in order.
	Upgrades []catalog.Release
	// Skip, when set, says why the cell cannot run here, decided before the
	// run: a release the user did not name whose sources are not provided, an
	// upgrade variant with nothing to upgrade to.
	// The cell is SKIPPED with it and the run goes on.
	Skip string
}

// Replay is the command that runs exactly this cell again: its scenario,
// variant, ArgoCD release, component version and Kubernetes version,
// nothing more.
func (c Cell) Replay() string {
	cmd := fmt.Sprintf("make e2e SCENARIO=%s VARIANT=%s ARGOCD=%s", c.Scenario.Name, c.Variant.Name, c.ArgoCD)
	if c.Scenario.ReplayCommand != "" {
		cmd = fmt.Sprintf("%s CHECKS=%s ARGOCD=%s", c.Scenario.ReplayCommand, c.Variant.Name, c.ArgoCD)
	} else if c.ComponentVersion != "" {
		cmd += " COMPONENT_VERSION=" + c.ComponentVersion
	}
	if c.Kubernetes.Version != "" {
		cmd += " KUBERNETES=" + c.Kubernetes.Version
	}
	return cmd
}

// Selection is what the user asked for; empty lists mean "all" / "default".
// Versions (component versions) replace the variants' own: a scenario runs
// those of them its component has in the catalog, and is left out if none.
// A version the catalog does not pin (a release newer than the pins) is
// taken when the selected scenarios all install one component: the nightly
// runs a new release without anyone editing a file. A variant that installs
// no component (minimal) runs once, on no component version, either way.
type Selection struct {
	Scenarios []string
	Variants  []string
	ArgoCD    []string
	Versions  []string
	// Kubernetes versions (or minors); empty: each scenario's axis.
	Kubernetes []string
	// Tier narrows the axes not named above: TierQuick to each scenario's
	// quick tier; empty or TierFull, every axis.
	Tier string
}

// Parse reads matrix data.
func Parse(data []byte) (*Data, error) {
	var d Data
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		return nil, fmt.Errorf("parse matrix: %w", err)
	}
	for _, s := range d.Scenarios {
		if err := checkVariants(s); err != nil {
			return nil, fmt.Errorf("parse matrix: scenario %q: %w", s.Name, err)
		}
		if err := checkQuick(s); err != nil {
			return nil, fmt.Errorf("parse matrix: scenario %q: %w", s.Name, err)
		}
	}
	for i, e := range d.Expectations {
		if err := d.checkExpectation(e); err != nil {
			return nil, fmt.Errorf("parse matrix: expectation %d (%q/%q): %w", i+1, e.Scenario, orAny(e.Variant), err)
		}
	}
	return &d, nil
}

// checkVariants refuses a scenario with no variants, a variant without a
// name or named twice, and a variant whose kind its name contradicts: bug
// and minimal are never mitigations, every other variant says it is one.
func checkVariants(s Scenario) error {
	if s.Name == "" {
		return errors.New("no name")
	}
	if len(s.Variants) == 0 {
		return errors.New("no variants")
	}
	seen := map[string]bool{}
	for _, v := range s.Variants {
		switch {
		case v.Name == "":
			return errors.New("a variant without a name")
		case seen[v.Name]:
			return fmt.Errorf("variant %q twice", v.Name)
		case (v.Name == Bug || v.Name == Minimal) && v.Mitigates:
			return fmt.Errorf("variant %q: %s reproduces the bug, it is not a mitigation (drop mitigation: true)", v.Name, v.Name)
		case v.Name != Bug && v.Name != Minimal && !v.Mitigates:
			return fmt.Errorf("variant %q: neither %s nor %s, so a mitigation: say mitigation: true", v.Name, Bug, Minimal)
		}
		for kube, versions := range v.KubernetesOnlyFor {
			axis := v.Kubernetes
			if len(axis) == 0 {
				axis = s.Kubernetes
			}
			if !slices.Contains(axis, kube) {
				return fmt.Errorf("variant %q: kubernetesOnlyFor names %s, not on its Kubernetes axis %v", v.Name, kube, axis)
			}
			for _, cv := range versions {
				if !slices.Contains(v.Versions(), cv) {
					return fmt.Errorf("variant %q: kubernetesOnlyFor %s names %s, not one of its component versions %v", v.Name, kube, cv, v.Versions())
				}
			}
		}
		seen[v.Name] = true
	}
	return nil
}

// checkQuick refuses a quick tier without its why, and one naming a
// component version the variant does not run. (suites' tests require every
// scenario of suites/matrix.yaml to have one.)
func checkQuick(s Scenario) error {
	if s.Quick != nil && s.Quick.Why == "" {
		return errors.New("quick tier without its why: make e2e runs it by default, say why these cells tell the story")
	}
	for _, v := range s.Variants {
		if v.Quick != nil && len(v.Quick.Kubernetes) > 0 {
			return fmt.Errorf("variant %q: a quick tier's kubernetes is the scenario's", v.Name)
		}
		if v.Quick != nil && v.Quick.Why == "" {
			return fmt.Errorf("variant %q: its quick tier needs its why", v.Name)
		}
		for _, cv := range s.quickVersions(v) {
			if !slices.Contains(v.Versions(), cv) {
				return fmt.Errorf("variant %q: quick componentVersions %s: not one of its versions (%s)", v.Name, cv, strings.Join(v.Versions(), ", "))
			}
		}
	}
	return nil
}

// quickVersions are the component versions variant v runs in the quick
// tier: its own quick list, else those of its versions the scenario's quick
// tier names, else its newest.
func (s Scenario) quickVersions(v Variant) []string {
	if v.Quick != nil && len(v.Quick.ComponentVersions) > 0 {
		return v.Quick.ComponentVersions
	}
	var kept []string
	if s.Quick != nil {
		for _, cv := range v.Versions() {
			if slices.Contains(s.Quick.ComponentVersions, cv) {
				kept = append(kept, cv)
			}
		}
	}
	if len(kept) == 0 {
		all := v.Versions()
		kept = all[len(all)-1:]
	}
	return kept
}

// QuickArgoCD is the ArgoCD releases variant v of s runs on in the quick
// tier: its own quick list, else the scenario's, else its full axis.
func (s Scenario) QuickArgoCD(v Variant, def []string) []string {
	switch {
	case v.Quick != nil && len(v.Quick.ArgoCD) > 0:
		return v.Quick.ArgoCD
	case s.Quick != nil && len(s.Quick.ArgoCD) > 0:
		return s.Quick.ArgoCD
	}
	return s.ArgoCDAxis(v, def)
}

// checkExpectation refuses an expectation that names no variant of its
// scenario, or whose outcome the variants it covers cannot have: a bug is
// REPRODUCED or NOT_REPRODUCED, a mitigation MITIGATED or NOT_MITIGATED
// (SKIPPED and RACE either).
func (d *Data) checkExpectation(e Expectation) error {
	s, err := d.Scenario(e.Scenario)
	if err != nil {
		return err
	}
	if err := checkMeasured(e); err != nil {
		return err
	}
	covered := 0
	for _, v := range s.Variants {
		if !match(e.Variant, v.Name) {
			continue
		}
		covered++
		if e.Expected == report.Skipped {
			continue
		}
		if v.Versions()[0] != "" && e.ComponentVersion == "" {
			return fmt.Errorf("variant %q runs on component versions %s: name the ones measured (componentVersion)", v.Name, strings.Join(v.Versions(), ", "))
		}
		if e.Expected == report.Race {
			continue
		}
		bugOutcome := e.Expected == report.Reproduced || e.Expected == report.NotReproduced
		mitigationOutcome := e.Expected == report.Mitigated || e.Expected == report.NotMitigated
		if v.Mitigation() && !mitigationOutcome || !v.Mitigation() && !bugOutcome {
			return fmt.Errorf("variant %q cannot be %s (a bug is REPRODUCED or NOT_REPRODUCED, a mitigation MITIGATED or NOT_MITIGATED)", v.Name, e.Expected)
		}
	}
	if covered == 0 {
		return fmt.Errorf("no variant %q (valid: %s)", e.Variant, strings.Join(s.VariantNames(), ", "))
	}
	return nil
}

// checkMeasured refuses an expectation that does not say where it was
// measured: the exact ArgoCD releases and component versions, and the runs.
func checkMeasured(e Expectation) error {
	if e.Expected == report.Skipped {
		return nil
	}
	if e.ArgoCD == "" || e.ArgoCD == "*" {
		return fmt.Errorf("no argocd: name the releases measured (an expectation for every release is one nobody measured)")
	}
	if e.Kubernetes == "" || e.Kubernetes == "*" {
		return fmt.Errorf("no kubernetes: name the Kubernetes versions measured")
	}
	for _, field := range []string{e.ArgoCD, e.ComponentVersion, e.Kubernetes} {
		if strings.ContainsAny(field, "*?[") {
			return fmt.Errorf("%q: name the releases measured, not a pattern", field)
		}
	}
	if len(e.Runs) == 0 {
		return fmt.Errorf("no runs: name the runs (run ids) the outcome was measured in")
	}
	for _, id := range e.Runs {
		if !runID.MatchString(id) {
			return fmt.Errorf("run %q: not a run id (YYYYMMDD-HHMMSS)", id)
		}
	}
	return nil
}

func orAny(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

// Names lists the scenario names.
func (d *Data) Names() []string {
	var n []string
	for _, s := range d.Scenarios {
		n = append(n, s.Name)
	}
	return n
}

// Scenario finds a scenario by name.
func (d *Data) Scenario(name string) (Scenario, error) {
	for _, s := range d.Scenarios {
		if s.Name == name {
			return s, nil
		}
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (valid: %s)", name, strings.Join(d.Names(), ", "))
}

// VariantNames lists a scenario's variants.
func (s Scenario) VariantNames() []string {
	var n []string
	for _, v := range s.Variants {
		n = append(n, v.Name)
	}
	return n
}

// Plan validates a selection and returns its cells, Kubernetes version
// outermost (one cluster serves its cells), then ArgoCD release (so one
// installed release serves many cells), then scenario, then variant.
func (d *Data) Plan(cat *catalog.Catalog, sel Selection) ([]Cell, error) {
	scenarios := d.Scenarios
	if len(sel.Scenarios) > 0 {
		scenarios = nil
		for _, name := range sel.Scenarios {
			s, err := d.Scenario(name)
			if err != nil {
				return nil, err
			}
			scenarios = append(scenarios, s)
		}
	}
	for _, v := range sel.Variants {
		found := false
		for _, s := range scenarios {
			found = found || slices.Contains(s.VariantNames(), v)
		}
		if !found {
			var valid []string
			for _, s := range scenarios {
				valid = append(valid, s.Name+": "+strings.Join(s.VariantNames(), ", "))
			}
			return nil, fmt.Errorf("unknown variant %q (valid: %s)", v, strings.Join(valid, "; "))
		}
	}
	if sel.Tier != "" && !slices.Contains(Tiers, sel.Tier) {
		return nil, fmt.Errorf("unknown tier %q (valid: %s)", sel.Tier, strings.Join(Tiers, ", "))
	}
	quick := sel.Tier == TierQuick
	selected, err := cat.Releases(sel.ArgoCD)
	if err != nil {
		return nil, err
	}
	var kubes []catalog.KubeVersion
	if len(sel.Kubernetes) > 0 {
		if kubes, err = cat.Kubernetes.Select(sel.Kubernetes); err != nil {
			return nil, err
		}
	}
	scenarios, err = withVersions(cat, scenarios, sel.Versions)
	if err != nil {
		return nil, err
	}
	type group struct {
		kube   string
		argocd catalog.Release
	}
	byGroup := map[group][]Cell{}
	var groups []group
	for _, s := range scenarios {
		for _, v := range s.Variants {
			if len(sel.Variants) > 0 && !slices.Contains(sel.Variants, v.Name) {
				continue
			}
			kubeAxis, err := s.KubeAxis(cat, v, kubes)
			if quick && len(kubes) == 0 {
				kubeAxis, err = s.QuickKubernetes(cat)
			}
			if err != nil {
				return nil, err
			}
			axis := selected
			if len(axis) == 0 {
				tags := s.ArgoCDAxis(v, cat.ArgoCD.Default)
				if quick {
					tags = s.QuickArgoCD(v, cat.ArgoCD.Default)
				}
				if axis, err = cat.Releases(tags); err != nil {
					return nil, fmt.Errorf("scenario %q, variant %q: %w", s.Name, v.Name, err)
				}
			}
			upgrades, err := cat.Releases(v.ArgoCDUpgrades)
			if err != nil {
				return nil, fmt.Errorf("scenario %q, variant %q: argocdUpgrades: %w", s.Name, v.Name, err)
			}
			for _, tag := range axis {
				var newer []catalog.Release
				for _, u := range upgrades {
					if u.Compare(tag) > 0 {
						newer = append(newer, u)
					}
				}
				var skip string
				if v.Mitigation() && len(upgrades) > 0 && len(newer) == 0 {
					skip = fmt.Sprintf("%s upgrades ArgoCD in place to %s, and %s is no older: nothing to upgrade to",
						v.Name, strings.Join(v.ArgoCDUpgrades, ", "), tag)
				}
				componentVersions := v.Versions()
				switch {
				case len(sel.Versions) > 0 && componentVersions[0] != "":
					componentVersions = s.versions
				case quick:
					componentVersions = s.quickVersions(v)
				}
				for _, kv := range kubeAxis {
					g := group{kv.Version, tag}
					for _, cv := range componentVersions {
						if only, ok := v.KubernetesOnlyFor[kv.Version]; ok && len(kubes) == 0 && !slices.Contains(only, cv) {
							continue
						}
						if !slices.Contains(groups, g) {
							groups = append(groups, g)
						}
						byGroup[g] = append(byGroup[g], Cell{Scenario: s, Variant: v, ArgoCD: tag, ComponentVersion: cv, Upgrades: newer, Kubernetes: kv, Skip: skip})
					}
				}
			}
		}
	}
	slices.SortFunc(groups, func(a, b group) int {
		if c := catalog.CompareTags(a.kube, b.kube); c != 0 {
			return c
		}
		return a.argocd.Compare(b.argocd)
	})
	var cells []Cell
	for _, g := range groups {
		cells = append(cells, byGroup[g]...)
	}
	return cells, nil
}

// ArgoCDAxis is the ArgoCD releases variant v of s runs on by default: the
// variant's own axis, else the scenario's, else def (the catalog's).
func (s Scenario) ArgoCDAxis(v Variant, def []string) []string {
	switch {
	case len(v.ArgoCD) > 0:
		return v.ArgoCD
	case len(s.ArgoCD) > 0:
		return s.ArgoCD
	}
	return def
}

// ArgoCDTags is every release s runs on by default, its variants' own
// axes included, in the order they first appear.
func (s Scenario) ArgoCDTags(def []string) []string {
	var tags []string
	for _, v := range s.Variants {
		for _, t := range s.ArgoCDAxis(v, def) {
			if !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
	}
	return tags
}

// KubeAxis is the Kubernetes versions variant v of s runs on: selected when
// the user named some, else the variant's own axis, else the scenario's,
// else the catalog's default.
func (s Scenario) KubeAxis(cat *catalog.Catalog, v Variant, selected []catalog.KubeVersion) ([]catalog.KubeVersion, error) {
	if len(selected) > 0 {
		return selected, nil
	}
	names := v.Kubernetes
	if len(names) == 0 {
		names = s.Kubernetes
	}
	axis, err := cat.Kubernetes.Select(names)
	if err != nil {
		return nil, fmt.Errorf("scenario %q, variant %q: %w", s.Name, v.Name, err)
	}
	return axis, nil
}

// QuickKubernetes is the Kubernetes versions of the scenario's quick tier:
// its own, else the catalog's default.
func (s Scenario) QuickKubernetes(cat *catalog.Catalog) ([]catalog.KubeVersion, error) {
	var names []string
	if s.Quick != nil {
		names = s.Quick.Kubernetes
	}
	axis, err := cat.Kubernetes.Select(names)
	if err != nil {
		return nil, fmt.Errorf("scenario %q, quick tier: %w", s.Name, err)
	}
	return axis, nil
}

// withVersions keeps the scenarios whose component has any of versions and
// records which (all of them when versions is empty). A well-formed version
// no component pins goes to every scenario when they all install one
// component (whether it was published is the module proxy's to say: the
// runner asks it); otherwise it is unknown.
func withVersions(cat *catalog.Catalog, scenarios []Scenario, versions []string) ([]Scenario, error) {
	if len(versions) == 0 {
		return scenarios, nil
	}
	used := map[string]bool{}
	var known, components []string
	for _, s := range scenarios {
		comp, err := cat.Component(s.Component)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(components, s.Component) {
			components = append(components, s.Component)
			known = append(known, s.Component+": "+strings.Join(comp.Versions, ", "))
		}
		for _, v := range versions {
			if slices.Contains(comp.Versions, v) {
				used[v] = true
			}
		}
	}
	for _, v := range versions {
		switch {
		case used[v]:
		case len(components) == 1 && releaseVersion.MatchString(v):
			used[v] = true
		case len(components) == 1:
			return nil, fmt.Errorf("component version %q is not a release version (like %s)", v, strings.Join(known, "; "))
		default:
			return nil, fmt.Errorf("unknown component version %q (valid: %s); a release the catalog does not pin is taken when SCENARIO names scenarios of one component", v, strings.Join(known, "; "))
		}
	}
	var kept []Scenario
	for _, s := range scenarios {
		comp, _ := cat.Component(s.Component)
		s.versions = nil
		for _, v := range versions {
			if len(components) == 1 || slices.Contains(comp.Versions, v) {
				s.versions = append(s.versions, v)
			}
		}
		if len(s.versions) > 0 {
			kept = append(kept, s)
		}
	}
	return kept, nil
}

// releaseVersion is a component release as a Go module version (v1.15.4,
// v0.47.1, v1.16.0-rc.1).
var releaseVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// Pinned reports whether the catalog pins version for the scenario's
// component: a version it does not is a newer release the runner asks the
// module proxy about.
func Pinned(cat *catalog.Catalog, s Scenario, version string) bool {
	comp, err := cat.Component(s.Component)
	return err == nil && slices.Contains(comp.Versions, version)
}

// Expected returns the expected outcome of a cell and why, on the
// Kubernetes version its cluster runs in that mode.
func (d *Data) Expected(c Cell, offline bool) (report.Outcome, string) {
	return d.ExpectedOn(c, offline, c.Kubernetes.Running(offline))
}

// ExpectedOn is Expected for a cell that ran on Kubernetes kube (what its
// cluster answered: NODE_IMAGE may have put another version there).
func (d *Data) ExpectedOn(c Cell, offline bool, kube string) (report.Outcome, string) {
	for _, e := range d.Expectations {
		if e.Scenario == c.Scenario.Name && match(e.Variant, c.Variant.Name) && match(e.ArgoCD, c.ArgoCD.String()) &&
			match(e.ComponentVersion, c.ComponentVersion) && match(e.Kubernetes, kube) && (e.Offline == nil || *e.Offline == offline) {
			return e.Expected, e.Why
		}
	}
	return "", report.NoMeasurement + " in suites/matrix.yaml"
}

// match reports whether value matches pattern: empty or "*" match anything;
// otherwise any of its comma-separated alternatives, each a path.Match glob.
func match(pattern, value string) bool {
	if pattern == "" || pattern == "*" {
		return true
	}
	for _, alt := range strings.Split(pattern, ",") {
		if ok, err := path.Match(strings.TrimSpace(alt), value); err == nil && ok {
			return true
		}
	}
	return false
}

// Report returns the report cell for c, before it runs.
func (c Cell) Report() report.Cell {
	rc := report.Cell{Scenario: c.Scenario.Name, Variant: c.Variant.Name, ArgoCD: c.ArgoCD.String(),
		Component: c.Scenario.Component, ComponentVersion: c.ComponentVersion, Kubernetes: c.Kubernetes.Version, Upstream: c.Scenario.Upstream}
	if n := len(c.Upgrades); n > 0 {
		rc.UpgradedTo = c.Upgrades[n-1].String()
	}
	return rc
}

// ParseList splits a comma-separated command-line list, dropping blanks.
func ParseList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ArgoCDReleases is every ArgoCD release the data names, oldest first: its
// scenarios' cells on either tier (upgrade targets too) and its
// expectations' releases.
func (d *Data) ArgoCDReleases(cat *catalog.Catalog) ([]string, error) {
	var tags []string
	add := func(t string) {
		if t != "" && t != "*" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	for _, tier := range []string{TierFull, TierQuick} {
		cells, err := d.Plan(cat, Selection{Tier: tier})
		if err != nil {
			return nil, err
		}
		for _, c := range cells {
			add(c.ArgoCD.String())
			for _, u := range c.Upgrades {
				add(u.String())
			}
		}
	}
	for _, e := range d.Expectations {
		for _, t := range ParseList(e.ArgoCD) {
			add(t)
		}
	}
	slices.SortFunc(tags, catalog.CompareTags)
	return tags, nil
}
