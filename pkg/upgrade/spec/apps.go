package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/pkg/appcell"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// The annotations the suite reads on an Application of APPS: images its
// workloads run, given to the node (as make conform's IMAGES and
// IMAGE_RECIPES).
const (
	ImagesAnnotation  = "upgrade-check.gitops-conformance.dev/images"
	RecipesAnnotation = "upgrade-check.gitops-conformance.dev/image-recipes"
)

// App is one Application of APPS, its source read.
type App struct {
	// Spec is the Application as the user gave it.
	Spec *v1alpha1.Application
	// File is where it was read.
	File string
	// Source is what the suite pushes to its git server for it.
	Source appcell.Source
	// Images and Recipes are its annotations'.
	Images  []string
	Recipes [][2]string
	// Served is a fleet run's Application whose sources are served
	// repositories (REPO, REPOS): Source is not read.
	Served bool
}

// Name is the Application's name.
func (a App) Name() string { return a.Spec.Name }

// Namespace is the Application's destination namespace ("" for none).
func (a App) Namespace() string { return a.Spec.Spec.Destination.Namespace }

// ReadApps reads the Applications of a YAML file, or of the .yaml, .yml
// and .json files directly in a directory (not its subdirectories, where
// their charts may be), as `kubectl get applications -o yaml` exports
// them: one, several, or a List. Other kinds are passed over (a fleet run
// reads its ApplicationSets: readFleet).
func ReadApps(path string) ([]*v1alpha1.Application, []string, error) {
	objs, err := readObjects(path)
	if err != nil {
		return nil, nil, err
	}
	return appsOf(path, objs)
}

// appsOf are the Applications among APPS' objects (read from path), and
// the files they came from.
func appsOf(path string, objs []object) ([]*v1alpha1.Application, []string, error) {
	var apps []*v1alpha1.Application
	var from []string
	sets := 0
	for _, o := range objs {
		switch o.obj["kind"] {
		case "ApplicationSet":
			sets++
			continue
		case "Application":
		default:
			continue // a user's export may hold other objects: not ours to check
		}
		var app v1alpha1.Application
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.obj, &app); err != nil {
			return nil, nil, fmt.Errorf("APPS %q: not an Application: %w", o.file, err)
		}
		apps = append(apps, &app)
		from = append(from, o.file)
	}
	if len(apps) == 0 && sets == 0 {
		return nil, nil, fmt.Errorf("APPS %q: no ArgoCD Application or ApplicationSet in it (kind: Application, ApplicationSet, or a List of them)", path)
	}
	return apps, from, nil
}

// readObjects reads the objects of a YAML file, or of the .yaml, .yml and
// .json files directly in a directory; a List's items are objects.
func readObjects(path string) ([]object, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("APPS %q: %w", path, appcell.UnwrapPath(err))
	}
	files := []string{path}
	if info.IsDir() {
		entries, err := os.ReadDir(path)
		if err != nil {
			return nil, fmt.Errorf("APPS %q: %w", path, err)
		}
		files = nil
		for _, e := range entries {
			switch filepath.Ext(e.Name()) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					files = append(files, filepath.Join(path, e.Name()))
				}
			}
		}
	}
	var out []object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("APPS %q: %w", f, appcell.UnwrapPath(err))
		}
		objs, err := kube.Decode(string(data))
		if err != nil {
			return nil, fmt.Errorf("APPS %q: %w", f, err)
		}
		for _, o := range objs {
			if !strings.HasSuffix(o.GetKind(), "List") {
				out = append(out, object{o.Object, f})
				continue
			}
			list, _ := o.Object["items"].([]any)
			for _, it := range list {
				if m, ok := it.(map[string]any); ok {
					out = append(out, object{m, f})
				}
			}
		}
	}
	return out, nil
}

// checkNames refuses Applications the suite cannot tell apart or name a
// cell after.
func checkNames(apps []*v1alpha1.Application) error {
	var seen []string
	for _, a := range apps {
		if errs := validation.IsDNS1123Subdomain(a.Name); len(errs) > 0 {
			return fmt.Errorf("application %q: %s", a.Name, strings.Join(errs, "; "))
		}
		if slices.Contains(seen, a.Name) {
			return fmt.Errorf("application %q twice in APPS: each is a cell, named after it", a.Name)
		}
		seen = append(seen, a.Name)
	}
	return nil
}

// annotations are the suite's annotations of an Application: its local
// images and image recipes.
func annotations(repo string, a *v1alpha1.Application) (images []string, recipes [][2]string, err error) {
	recipes, err = appcell.Recipes(repo, a.Annotations[RecipesAnnotation])
	if err != nil {
		return nil, nil, fmt.Errorf("application %s: annotation %s: %w", a.Name, RecipesAnnotation, err)
	}
	return matrix.ParseList(a.Annotations[ImagesAnnotation]), recipes, nil
}

// Kept are the annotations of a user's Application the suite keeps: ArgoCD
// reads some (manifest-generate-paths decides when a commit is compared:
// argo-cd#27875), but not an export's last-applied configuration, a
// refresh asked for when it was exported, nor the suite's own.
func Kept(given map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range given {
		switch k {
		case "kubectl.kubernetes.io/last-applied-configuration", v1alpha1.AnnotationKeyRefresh, ImagesAnnotation, RecipesAnnotation:
		default:
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
