package spec

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gitops-conformance/suite/pkg/appcell"
)

// A Setting is one of make upgrade-check's settings, declared once: its
// make variable (which the CLI and the e2e test binary read from the
// environment, where make puts it), its flag, its key in
// suites/upgrade-check-validate.yaml, whether its value is a path relative
// to the checkout, its help, and the Options field that holds it. Register,
// FromEnv, the replay command, the validations' YAML and their flags all
// come from Settings: a new setting is an entry here, its Options field,
// and the code that reads it.
type Setting struct {
	Make, Flag, YAML string
	// Path: a file or directory, relative to the checkout.
	Path bool
	Help string
	// field is the Options field: a *string, *int or *bool.
	field func(*Options) any
	// shared: registered by appcell.Shared (make conform has it too), and
	// passed by the Makefile as a flag, not read from the environment.
	shared bool
}

// Settings are make upgrade-check's, in the order the replay command and
// the validations' settings name them.
var Settings = []Setting{
	{Make: "APPS", Flag: "apps", Path: true, field: func(o *Options) any { return &o.Apps },
		Help: "a YAML file or directory of ArgoCD Applications (and ApplicationSets); default: the seed charts"},
	{Make: "IMAGES", Flag: "images", shared: true, field: func(o *Options) any { return &o.Images }},
	{Make: "IMAGE_RECIPES", Flag: "image-recipes", shared: true, field: func(o *Options) any { return &o.ImageRecipes }},
	{Make: "ARGOCD_CM", Flag: "argocd-cm", YAML: "argocdCM", Path: true, field: func(o *Options) any { return &o.ArgoCDConfig },
		Help: "the argocd-cm settings the Applications run with: a ConfigMap manifest or a YAML map of its data"},
	{Make: "ARGOCD_CMD_PARAMS", Flag: "argocd-cmd-params", YAML: "argocdCmdParams", Path: true, shared: true, field: func(o *Options) any { return &o.ArgoCDCmdParams }},
	{Make: "METHOD", Flag: "method", YAML: "method", field: func(o *Options) any { return &o.Method },
		Help: "how TO's install manifests go over FROM's: server-side (kubectl apply --server-side --force-conflicts), client-side (kubectl apply), self-managed (an Application of ArgoCD's own syncs TO's install.yaml from git) or kustomize (OVERLAY built over TO's install.yaml); default: what TO's own upgrade guide says"},
	{Make: "SELF_SYNC_OPTIONS", Flag: "self-sync-options", YAML: "selfSyncOptions", field: func(o *Options) any { return &o.SelfSyncOptions },
		Help: "METHOD=self-managed: the sync options of ArgoCD's own Application, comma-separated (e.g. ServerSideApply=true)"},
	{Make: "OVERLAY", Flag: "overlay", YAML: "overlay", Path: true, field: func(o *Options) any { return &o.Overlay },
		Help: "METHOD=kustomize: the team's kustomize overlay of ArgoCD's install manifests, a directory whose kustomization names install.yaml (or upstream's URL) among its resources"},
	{Make: "METRICS", Flag: "metrics", YAML: "metrics", field: func(o *Options) any { return &o.Metrics },
		Help: "the cluster's metrics-server, as managed Kubernetes runs one: none, or a version the catalog pins; default: the catalog's"},
	{Make: "CHANGE", Flag: "change", YAML: "change", Path: true, field: func(o *Options) any { return &o.Change },
		Help: "the change pushed to an Application's source after the upgrade, in place of the check's own: a patch as `git diff` writes it, paths from the source's root; file (APPS holds one Application) or application=file,..."},
	{Make: "DURING_SYNC", Flag: "during-sync", YAML: "duringSync", field: func(o *Options) any { return &o.DuringSync },
		Help: "on each release, N commits each pushed while ArgoCD's auto-sync of the one before runs (a PreSync hook keeps it running), and whether ArgoCD syncs each by itself, k/N (argoproj/argo-cd#27875)"},
	{Make: "WEBHOOK", Flag: "webhook", YAML: "webhook", field: func(o *Options) any { return &o.Webhook },
		Help: "after each commit pushed to an Application's source, a normal refresh of it asked for, as ArgoCD's webhook handler asks on a push event (1); default: none, ArgoCD finds commits by itself"},
	{Make: "SHARD", Flag: "shard", field: func(o *Options) any { return &o.Shard },
		Help: "k/N: only the k-th of N parts of APPS (sorted by name, every N-th from the k-th), for N CI jobs whose reports make report-merge joins"},
	{Make: "REPO", Flag: "repo", field: func(o *Options) any { return &o.Repo },
		Help: "the team's GitOps repository, a checkout whose remote origin names its URL (online also a git URL, cloned): served by the suite's git server with its branches, tags and history to every Application and ApplicationSet that names it"},
	{Make: "REPOS", Flag: "repos", field: func(o *Options) any { return &o.Repos },
		Help: "several repositories, url=dir,..."},
	{Make: "ISOLATE", Flag: "isolate", YAML: "isolate", field: func(o *Options) any { return &o.Isolate },
		Help: "1: a cell per Application, each on a fresh ArgoCD (the lifecycle: syncs, commits, deletions); 0: the fleet, every Application on one ArgoCD upgraded once; default: the fleet with REPO, REPOS or an ApplicationSet in APPS"},
	{Make: "LIFECYCLE", Flag: "lifecycle", YAML: "lifecycle", field: func(o *Options) any { return &o.Lifecycle },
		Help: "the fleet's lifecycle tier (a sync asked on TO, its hooks, then the fleet's cascading deletion) for the Applications whose render or state changed (changed, the default), every one with a sync asked on FROM first (all), or none"},
	{Make: "HEALTH_WINDOW", Flag: "health-window", YAML: "healthWindow", field: func(o *Options) any { return &o.HealthWindow },
		Help: "the fleet reads each Application once its health has not changed for this long, on each release (a CronJob's next run, a Job's end inside it): a Go duration, 0s for none; default: 2m"},
}

// SettingByYAML is the setting a validation's YAML key names.
func SettingByYAML(key string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.YAML != "" && s.YAML == key })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// Value is the setting's value in o as make takes it: "" for unset (0,
// false), "1" for a bool set.
func (s Setting) Value(o *Options) string {
	switch p := s.field(o).(type) {
	case *string:
		return *p
	case *int:
		if *p == 0 {
			return ""
		}
		return strconv.Itoa(*p)
	case *bool:
		if *p {
			return "1"
		}
	}
	return ""
}

// zero is the flag's value for a setting left unset.
func (s Setting) zero() string {
	switch s.field(&Options{}).(type) {
	case *int:
		return "0"
	case *bool:
		return "false"
	}
	return ""
}

// register defines the setting's flag on fs.
func (s Setting) register(o *Options, fs *flag.FlagSet) {
	help := "make upgrade-check: " + s.Help + " (" + s.Make + ")"
	switch p := s.field(o).(type) {
	case *string:
		fs.StringVar(p, s.Flag, "", help)
	case *int:
		fs.IntVar(p, s.Flag, 0, help)
	case *bool:
		fs.BoolVar(p, s.Flag, false, help)
	}
}

// Register defines the options' own flags on fs (appcell.Shared registers
// the ones make conform has too).
func (o *Options) Register(fs *flag.FlagSet) {
	for _, s := range Settings {
		if !s.shared {
			s.register(o, fs)
		}
	}
}

// FromEnv sets each setting whose flag fs was not given from its make
// variable in the environment (getenv), where make puts the variables of
// its command line: make upgrade-check passes none of them as flags. A
// flag given, even empty, wins.
func FromEnv(fs *flag.FlagSet, getenv func(string) string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, s := range Settings {
		v := getenv(s.Make)
		if s.shared || given[s.Flag] || v == "" || fs.Lookup(s.Flag) == nil {
			continue
		}
		if _, ok := s.field(&Options{}).(*bool); ok { // make's 1, true or yes
			v = strconv.FormatBool(slices.Contains([]string{"1", "true", "yes"}, v))
		}
		if err := fs.Set(s.Flag, v); err != nil {
			return fmt.Errorf("%s=%q: %w", s.Make, v, err)
		}
	}
	return nil
}

// Flags are the test binary's flags for settings (by YAML key, as a
// validation holds them: a string, a number, a bool, or a list joined with
// commas): every setting given, empty where unset (SHARD and REPO too,
// which a validation does not hold), so that nothing of the caller's
// environment reaches the run (FromEnv); a path is made absolute from repo.
// APPS is the caller's. An unknown key is an error.
func Flags(settings map[string]any, repo string) ([]string, error) {
	var args []string
	for _, s := range Settings {
		if s.YAML == "" && (s.shared || s.Flag == "apps") {
			continue // not a validation's (IMAGES, IMAGE_RECIPES), or given beside (APPS)
		}
		v, err := yamlValue(settings[s.YAML])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.YAML, err)
		}
		if s.Path && v != "" && !filepath.IsAbs(v) && !strings.Contains(v, "=") {
			v = filepath.Join(repo, v)
		}
		if v == "" {
			v = s.zero()
		}
		args = append(args, "-"+s.Flag+"="+v)
	}
	for k := range settings {
		if _, ok := SettingByYAML(k); !ok {
			return nil, fmt.Errorf("%q: not a setting of make upgrade-check", k)
		}
	}
	return args, nil
}

// Said is settings (by YAML key) as make's variables, "" for the defaults.
func Said(settings map[string]any) string {
	var out []string
	for _, s := range Settings {
		if v, _ := yamlValue(settings[s.YAML]); s.YAML != "" && v != "" {
			out = append(out, s.Make+"="+v)
		}
	}
	return strings.Join(out, " ")
}

// yamlValue is a setting's value as a validation's YAML holds it, as make
// takes it: false and 0 are unset.
func yamlValue(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case bool:
		if x {
			return "1", nil
		}
		return "", nil
	case float64:
		if x == 0 {
			return "", nil
		}
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case int:
		return yamlValue(float64(x))
	case []any:
		var parts []string
		for _, e := range x {
			s, err := yamlValue(e)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("%v: a string, a number, a bool or a list", v)
}

// command is make upgrade-check with the options given, as a user types it.
func (o Options) command() string {
	vars := []appcell.Var{{Name: "FROM", Value: o.From}, {Name: "TO", Value: o.To}}
	for _, s := range Settings {
		vars = append(vars, appcell.Var{Name: s.Make, Value: s.Value(&o)})
	}
	return appcell.Command("make upgrade-check", vars...)
}
