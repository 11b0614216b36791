package changes

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Impact is what a change does to a team that meets it.
type Impact string

const (
	// Harmless: what ArgoCD shows or writes differs; what it applies and
	// how the Application behaves do not.
	Harmless Impact = "harmless"
	// Behaviour: ArgoCD acts otherwise (what it applies, reports or
	// tracks), as its upgrade guide says; a team adapts or restores it.
	Behaviour Impact = "behaviour"
	// Breaking: something the Application did on FROM it no longer does.
	Breaking Impact = "breaking"
)

// Part is which reading of an Application a difference was found in.
type Part string

const (
	// Render: a field of an object of the repo server's render (Object,
	// Path, From, To: JSON, "" where a render lacks it).
	Render Part = "render"
	// StatusField: a field of the Application's status held on FROM and
	// not on TO (Path: appstate.Fields' form).
	StatusField Part = "status-field"
	// Unmanaged: an object still in git that ArgoCD managed on FROM and
	// manages no more on TO (Object); Text is the condition ArgoCD gave.
	Unmanaged Part = "unmanaged"
	// Health: a resource whose health differs, or made the Application's
	// differ (Object, From, To: the health statuses).
	Health Part = "health"
	// Pushed: a commit pushed to git that ArgoCD did not act on as wanted
	// (Text: what the verdict says of it).
	Pushed Part = "pushed"
)

// Difference is one way an Application differs on TO from FROM, as a
// change is matched against it.
type Difference struct {
	Part     Part
	Object   string // the object, as appstate.Ref names it: group/kind namespace/name
	Path     string
	From, To string
	Text     string
}

// Change is one behaviour change of ArgoCD between releases that a team
// can meet on an upgrade, read at the tag: the release it came in, where
// that release's upgrade guide says so, what it does to a team, and what
// keeps FROM's behaviour (Restore) or adapts to it (Adapt).
type Change struct {
	ID    string
	Since string // the first release with it
	// Title says what changed, in a verdict's few words; Detail as a team
	// reads it in the docs.
	Title  string
	Detail string
	// Guide is where the upgrade guide says so: its file and line in
	// ArgoCD v3.6.1's module zip (docs/operator-manual/upgrading/).
	Guide   string
	Ref     string // the upstream pull request, where one was read ("" none)
	Impact  Impact
	Restore string
	Adapt   string
	match   func(Difference) bool
}

// Matches says whether d is this change's doing.
func (c Change) Matches(d Difference) bool { return c.match(d) }

// On says whether an upgrade from -> to crosses the change: from is
// before its release and to is at it or after.
func (c Change) On(from, to string) bool {
	return catalog.CompareTags(from, c.Since) < 0 && catalog.CompareTags(to, c.Since) >= 0
}

// Said is the change as a verdict names it: its id and release, what it
// is, and what keeps the old behaviour.
func (c Change) Said() string {
	s := fmt.Sprintf("%s (%s: %s)", c.ID, c.Since, c.Title)
	if c.Restore != "" {
		s += ", kept as before by " + c.Restore
	}
	return s
}

// Catalog is every change the suite knows, in the order of their releases.
var Catalog = []Change{
	{
		ID: "tracking-annotation", Since: "v3.0.0", Impact: Behaviour,
		Title:   "resources tracked by annotation, not label",
		Detail:  "ArgoCD tracks an Application's resources by the annotation argocd.argoproj.io/tracking-id, no longer by the label app.kubernetes.io/instance; the render the repo server gives carries the annotation.",
		Guide:   "2.14-3.0.md:241",
		Restore: "argocd-cm application.resourceTrackingMethod: label",
		Adapt:   "sync every Application once after the upgrade (its next sync writes the annotation; one with ApplyOutOfSyncOnly=true needs a sync asked explicitly)",
		match: func(d Difference) bool {
			return d.Part == Render && (d.Path == ".metadata.labels.app.kubernetes.io/instance" && d.To == "" ||
				d.Path == ".metadata.annotations.argocd.argoproj.io/tracking-id" && d.From == "" ||
				emptied(d, ".metadata.labels") || emptied(d, ".metadata.annotations"))
		},
	},
	{
		ID: "tracking-orphans", Since: "v3.0.0", Impact: Breaking,
		Title:   "an object removed from git before the first sync under annotation tracking is left behind",
		Detail:  "an object ArgoCD made under label tracking carries no tracking annotation: removed from git before a sync writes the annotation, it is no longer counted as the Application's and is never pruned (the guide's warning \"Potential for orphaned resources\").",
		Guide:   "2.14-3.0.md:277",
		Restore: "argocd-cm application.resourceTrackingMethod: label",
		Adapt:   "sync every Application once right after the upgrade, before a commit removes anything (the guide's advice); delete what was left by hand",
		match: func(d Difference) bool {
			return d.Part == Pushed && strings.Contains(d.Text, "left behind (ArgoCD does not count it as the Application's)")
		},
	},
	{
		ID: "health-not-persisted", Since: "v3.0.0", Impact: Behaviour,
		Title:   "resources' health out of the Application's status",
		Detail:  "the resources' health is no longer kept in the Application's status.resources[].health: a tool reading the Application resource loses it.",
		Guide:   "2.14-3.0.md:338",
		Ref:     "argoproj/argo-cd#21532",
		Restore: `argocd-cmd-params-cm controller.resource.health.persist: "true"`,
		Adapt:   "read each resource's health through ArgoCD's API (argocd app get -o json)",
		match: func(d Difference) bool {
			return d.Part == StatusField && strings.HasPrefix(d.Path, "status.resources[].health")
		},
	},
	{
		ID: "default-resource-exclusions", Since: "v3.0.0", Impact: Breaking,
		Title:   "Endpoints, EndpointSlices, Leases excluded by default",
		Detail:  "the install's argocd-cm resource.exclusions excludes Endpoints, EndpointSlices, Leases and other kinds controllers make: ArgoCD stops managing one kept in git (a change to it is never applied, it is never pruned).",
		Guide:   "2.14-3.0.md:67",
		Ref:     "argoproj/argo-cd#21635",
		Restore: "argocd-cm resource.exclusions without the kinds kept in git (the default list, less those)",
		Adapt:   "keep no excluded kind in git (a Service with a selector makes its own Endpoints)",
		match: func(d Difference) bool {
			kind := kindOf(d.Object)
			return d.Part == Unmanaged && (strings.Contains(d.Text, "ExcludedResourceWarning") || slices.Contains(excludedKinds, kind))
		},
	},
	{
		ID: "cronjob-health", Since: "v3.2.0", Impact: Behaviour,
		Title:   "a CronJob's health: Degraded when its last Job failed",
		Detail:  "a CronJob has a health of its own, Degraded when its last Job failed, and the Application's health takes it.",
		Guide:   "3.1-3.2.md:64",
		Ref:     "argoproj/argo-cd#23991 (as argoproj/argo-cd#25551 names it)",
		Restore: `annotation argocd.argoproj.io/ignore-healthcheck: "true" on the CronJob (or argocd-cm resource.customizations.health.batch_CronJob)`,
		Adapt:   "fix the CronJob's failing runs: its health now says so",
		match: func(d Difference) bool {
			return d.Part == Health && kindOf(d.Object) == "batch/CronJob"
		},
	},
}

// excludedKinds are the kinds of 3.0's default resource.exclusions that a
// team may keep in git (2.14-3.0.md:75; the others are made by controllers
// or are requests).
var excludedKinds = []string{"Endpoints", "discovery.k8s.io/EndpointSlice", "coordination.k8s.io/Lease"}

// emptied says whether d is a map at path (labels, annotations) whose
// only key was the tracking label, or gained only the annotation: the
// render's metadata then differs as a whole.
func emptied(d Difference, path string) bool {
	return d.Part == Render && d.Path == path &&
		(trackingOnly.MatchString(d.From) && d.To == "" || d.From == "" && trackingOnly.MatchString(d.To))
}

var trackingOnly = regexp.MustCompile(`^\{"(app\.kubernetes\.io/instance|argocd\.argoproj\.io/tracking-id)":"[^"]*"\}$`)

// kindOf is the group/kind of an object as appstate.Ref names it.
func kindOf(ref string) string {
	kind, _, _ := strings.Cut(ref, " ")
	return kind
}

// Explain is the change of the catalog that explains d on the upgrade
// from -> to, or nil: only a change the upgrade crosses explains.
func Explain(d Difference, from, to string) *Change {
	for i, c := range Catalog {
		if c.On(from, to) && c.Matches(d) {
			return &Catalog[i]
		}
	}
	return nil
}

// Compare orders two changes' ids as the catalog lists them (an id it
// does not have first).
func Compare(a, b string) int {
	rank := func(id string) int { return slices.IndexFunc(Catalog, func(c Change) bool { return c.ID == id }) }
	return rank(a) - rank(b)
}

// ByID is the change of the catalog with id, or false.
func ByID(id string) (Change, bool) {
	i := slices.IndexFunc(Catalog, func(c Change) bool { return c.ID == id })
	if i < 0 {
		return Change{}, false
	}
	return Catalog[i], true
}
