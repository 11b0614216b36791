package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/gitrepo"
)

// refusedGenerators are the ApplicationSet generators a fleet run cannot
// give what they ask: a git host's API, pull requests, other clusters'
// decisions, a plugin's server.
var refusedGenerators = map[string]string{
	"scmProvider":             "an SCM provider's API",
	"pullRequest":             "a git host's pull requests",
	"clusterDecisionResource": "a cluster-decision resource of other clusters",
	"plugin":                  "a generator plugin's server",
}

// refusedGenerator says why an ApplicationSet's generators (matrix and
// merge walked into) cannot run here, or "".
func refusedGenerator(gens []any) string {
	for _, g := range gens {
		m, _ := g.(map[string]any)
		for k, v := range m {
			if why, ok := refusedGenerators[k]; ok {
				return fmt.Sprintf("its %s generator needs %s, which the suite cannot give", k, why)
			}
			if k == "matrix" || k == "merge" {
				inner, _ := v.(map[string]any)
				nested, _ := inner["generators"].([]any)
				if why := refusedGenerator(nested); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

// readFleet reads, for a fleet run, APPS' ApplicationSets and which of its
// Applications the run can take: one whose every source is a served
// repository (REPO, REPOS), a chart repository online, or (one source) a
// local path, pushed as today's cells push it. What it cannot take is
// refused in one line each, and the rest go on.
func (s *Spec) readFleet(path string, objs []object, given []*v1alpha1.Application, files []string, w appcell.Where) error {
	for _, o := range objs {
		if o.obj["kind"] != "ApplicationSet" {
			continue
		}
		set := &unstructured.Unstructured{Object: o.obj}
		gens, _, _ := unstructured.NestedSlice(set.Object, "spec", "generators")
		if why := refusedGenerator(gens); why != "" {
			s.Refused = append(s.Refused, fmt.Sprintf("ApplicationSet %s (%s): %s", set.GetName(), o.file, why))
			continue
		}
		if url := s.unserved(set.Object); url != "" {
			s.Refused = append(s.Refused, fmt.Sprintf("ApplicationSet %s (%s): repository %s is not served (REPO=checkout, REPOS=url=dir)", set.GetName(), o.file, url))
			continue
		}
		s.AppSets = append(s.AppSets, set)
	}
	resolver := appcell.Resolver{CacheDir: w.CacheDir, Online: w.Online}
	for i, a := range given {
		why, served := s.takes(a)
		if why != "" {
			s.Refused = append(s.Refused, fmt.Sprintf("application %s (%s): %s", a.Name, files[i], why))
			continue
		}
		app := App{Spec: a, File: files[i], Served: served}
		if !served {
			src, err := resolver.Resolve(a, files[i])
			if err != nil {
				s.Refused = append(s.Refused, err.Error())
				continue
			}
			app.Source = src
		}
		s.Apps = append(s.Apps, app)
	}
	if len(s.Apps) == 0 && len(s.AppSets) == 0 {
		return fmt.Errorf("APPS %q: no Application or ApplicationSet the check can take: %s", path, strings.Join(s.Refused, "; "))
	}
	return nil
}

// shardFleet keeps SHARD=k/N of the fleet: its Applications and
// ApplicationSets sorted by name, the k-th, the (k+N)-th ...; an
// ApplicationSet's Applications, and an app-of-apps parent's children, go
// with it (ArgoCD makes them in the shard's run). Each shard's report holds
// its own Applications; make report-merge joins them.
func (s *Spec) shardFleet(spec string) error {
	type unit struct {
		name string
		app  *App
		set  *unstructured.Unstructured
	}
	var units []unit
	for i := range s.Apps {
		units = append(units, unit{name: s.Apps[i].Name(), app: &s.Apps[i]})
	}
	for _, set := range s.AppSets {
		units = append(units, unit{name: set.GetName(), set: set})
	}
	picked, others, err := pickShard(spec, units, func(u unit) string { return u.name })
	if err != nil {
		return err
	}
	if len(picked) == 0 {
		return fmt.Errorf("SHARD %s: no Application or ApplicationSet falls in it, the fleet holds %d: at most %d shards", spec, len(units), len(units))
	}
	var apps []App
	var sets []*unstructured.Unstructured
	for _, u := range picked {
		if u.app != nil {
			apps = append(apps, *u.app)
		} else {
			sets = append(sets, u.set)
		}
	}
	s.Apps, s.AppSets, s.Others = apps, sets, append(s.Others, others...)
	return nil
}

// takes says why a fleet run cannot take an Application ("" when it can),
// and whether its sources are all served.
func (s *Spec) takes(a *v1alpha1.Application) (string, bool) {
	srcs := a.Spec.GetSources()
	if len(srcs) == 0 {
		return "no source", false
	}
	served := 0
	for _, src := range srcs {
		switch {
		case slices.ContainsFunc(s.Repos, func(r gitrepo.Repo) bool { return r.Names(src.RepoURL) }):
			served++
		case src.Chart != "" && s.online:
		case len(srcs) > 1:
			return fmt.Sprintf("source %s is not a served repository (REPO=checkout, REPOS=url=dir)%s", src.RepoURL, offlineChart(src)), false
		}
	}
	return "", served > 0
}

func offlineChart(src v1alpha1.ApplicationSource) string {
	if src.Chart != "" {
		return " nor, offline, a chart repository"
	}
	return ""
}

// object is one object of APPS and the file it came from.
type object struct {
	obj  map[string]any
	file string
}

// rewrite points every served repository's URL in obj at its served copy
// and puts it in ArgoCD's namespace, without what the API server set.
func (s *Spec) rewrite(obj map[string]any) (map[string]any, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	text := string(data)
	for _, r := range s.Repos {
		text = r.Rewrite(text)
	}
	out := map[string]any{}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: out}
	u.SetNamespace(argocd.Namespace)
	u.SetResourceVersion("")
	u.SetUID("")
	u.SetManagedFields(nil)
	u.SetCreationTimestamp(metav1.Time{})
	u.SetGeneration(0)
	anns := Kept(u.GetAnnotations())
	u.SetAnnotations(anns)
	delete(out, "status")
	delete(out, "operation")
	return out, nil
}

// FleetManifest is the Applications and ApplicationSets as the fleet run
// creates them (rewrite): an Application of a local path reads its own
// repository on the git server, as a cell's does; every destination is
// this cluster. One that cannot be made so is an error naming it, never
// left out unsaid.
func (s *Spec) FleetManifest() (string, error) {
	var docs []string
	add := func(kind, name string, obj map[string]any) error {
		obj, err := s.rewrite(obj)
		if err == nil {
			var b []byte
			if b, err = yaml.Marshal(obj); err == nil {
				docs = append(docs, string(b))
			}
		}
		if err != nil {
			return fmt.Errorf("%s %s: %w", kind, name, err)
		}
		return nil
	}
	for _, a := range s.Apps {
		app := a.Spec.DeepCopy()
		if !a.Served {
			src := app.Spec.Source.DeepCopy()
			src.RepoURL, src.Path, src.Chart, src.TargetRevision = gitserver.URL(a.Name()), ".", "", ""
			app.Spec.Source = src
		}
		app.Spec.Destination = v1alpha1.ApplicationDestination{Server: "https://kubernetes.default.svc", Namespace: app.Spec.Destination.Namespace}
		app.APIVersion, app.Kind = "argoproj.io/v1alpha1", "Application"
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
		if err != nil {
			return "", fmt.Errorf("application %s: %w", a.Name(), err)
		}
		if err := add("application", a.Name(), obj); err != nil {
			return "", err
		}
	}
	for _, set := range s.AppSets {
		if err := add("ApplicationSet", set.GetName(), set.Object); err != nil {
			return "", err
		}
	}
	return strings.Join(docs, "---\n"), nil
}

// Projects are the AppProjects the Applications and the ApplicationSets'
// templates name, other than default: each made permissive (any source,
// this cluster, any namespace and kind), the fleet running on one cluster.
func (s *Spec) Projects() string {
	var names []string
	add := func(p string) {
		if p != "" && p != "default" && !strings.Contains(p, "{{") && !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	for _, a := range s.Apps {
		add(a.Spec.Spec.Project)
	}
	for _, set := range s.AppSets {
		p, _, _ := unstructured.NestedString(set.Object, "spec", "template", "spec", "project")
		add(p)
	}
	var docs []string
	for _, n := range names {
		docs = append(docs, fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata:
  name: %s
  namespace: %s
spec:
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
  clusterResourceWhitelist: [{group: "*", kind: "*"}]
`, n, argocd.Namespace))
	}
	return strings.Join(docs, "---\n")
}

// Namespaces are the destination namespaces of APPS' Applications that do
// not sync with CreateNamespace=true, made beforehand as a cell makes them.
func (s *Spec) Namespaces() string {
	var names []string
	for _, a := range s.Apps {
		ns := a.Namespace()
		if p := a.Spec.Spec.SyncPolicy; ns == "" || clusterOwn(ns) || slices.Contains(names, ns) || p != nil && slices.Contains(p.SyncOptions, "CreateNamespace=true") {
			continue
		}
		names = append(names, ns)
	}
	return NamespacesManifest(names)
}

// clusterOwn says whether a destination namespace is the cluster's or
// ArgoCD's own (an app-of-apps parent's is argocd): never made by the fleet,
// so never deleted at its end, where a namespace holding the Applications
// would wait on finalizers no controller removes any more.
func clusterOwn(ns string) bool {
	return ns == argocd.Namespace || ns == "default" || strings.HasPrefix(ns, "kube-")
}

// NamespacesManifest is one manifest of the namespaces names.
func NamespacesManifest(names []string) string {
	var docs []string
	for _, n := range names {
		docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", n))
	}
	return strings.Join(docs, "---\n")
}

// unserved is the first git repository an object names (a repoURL of a
// generator or a template) that no served repository is, or "": a chart
// repository is pulled online, and one made by a template ({{...}}) is
// not known before ArgoCD generates it.
func (s *Spec) unserved(obj any) string {
	switch v := obj.(type) {
	case map[string]any:
		for k, val := range v {
			url, ok := val.(string)
			if k == "repoURL" && ok && !strings.Contains(url, "{{") && !slices.ContainsFunc(s.Repos, func(r gitrepo.Repo) bool { return r.Names(url) }) {
				if _, chart := v["chart"]; !chart || !s.online {
					return url
				}
			}
			if u := s.unserved(val); u != "" {
				return u
			}
		}
	case []any:
		for _, val := range v {
			if u := s.unserved(val); u != "" {
				return u
			}
		}
	}
	return ""
}

// RepositorySecret registers a repository with ArgoCD (a Secret of type
// repository, git), as a team registers its own private one: see
// cell.repository for why an unregistered one would not do.
func RepositorySecret(name, url string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: gitops-conformance-repo-%s
  namespace: %s
  labels:
    argocd.argoproj.io/secret-type: repository
    app.kubernetes.io/part-of: gitops-conformance
stringData:
  type: git
  url: %s
`, name, argocd.Namespace, url)
}
