package env

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/e2e-framework/pkg/features"

	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/shell"
)

// Apply applies a manifest server-side; the cell deletes it at its end.
func Apply(what, manifest string) features.Func {
	return assert.Step("apply "+what, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		c.Step("apply %s:\n%s", what, manifest)
		c.Defer("delete "+what, func(ctx context.Context) error {
			_, err := shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader(manifest),
				Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "delete", "--ignore-not-found", "--wait=true", "--timeout=2m", "-f", "-"}})
			return err
		})
		return r.Kubectl.Apply(ctx, manifest)
	})
}

// Delete deletes an object; extra kubectl arguments choose the propagation
// (e.g. "--cascade=foreground").
func Delete(kind, namespace, name string, args ...string) features.Func {
	return assert.Step("delete "+ref(kind, namespace, name), func(ctx context.Context) error {
		CellFrom(ctx).Step("delete %s %v", ref(kind, namespace, name), args)
		a := append([]string{"delete", kind, name, "--wait=false"}, args...)
		if namespace != "" {
			a = append(a, "-n", namespace)
		}
		_, err := From(ctx).Kubectl.Run(ctx, a...)
		return err
	})
}

// Watch adds an object to the cell's evidence.
func Watch(kind, namespace, name string) features.Func {
	return assert.Step("watch "+ref(kind, namespace, name), func(ctx context.Context) error {
		CellFrom(ctx).Watch(kind, namespace, name)
		return nil
	})
}

// Exists holds when the object exists.
func Exists(kind, namespace, name string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := get(ctx, kind, namespace, name, "jsonpath={.metadata.deletionTimestamp}")
		if err != nil {
			return false, "not found", nil
		}
		if out != "" {
			return true, "exists, deleting since " + out, nil
		}
		return true, "exists", nil
	}
}

// Missing holds when the object does not exist.
func Missing(kind, namespace, name string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		ok, seen, err := Exists(kind, namespace, name)(ctx)
		return !ok, seen, err
	}
}

// NoneLeft holds when nothing of kind in namespace matches the label selector.
func NoneLeft(kind, namespace, selector string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := From(ctx).Kubectl.Run(ctx, "get", kind, "-n", namespace, "-l", selector, "-o", "name")
		if err != nil {
			return false, "", err
		}
		var left []string // kind/name lines; "No resources found" is not one
		for _, f := range strings.Fields(out) {
			if strings.Contains(f, "/") {
				left = append(left, f)
			}
		}
		if len(left) > 0 {
			return false, strings.Join(left, " ") + " left", nil
		}
		return true, "none left", nil
	}
}

// JSONPathIs holds when a kubectl jsonpath over the object prints want.
func JSONPathIs(kind, namespace, name, jsonpath, want string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := get(ctx, kind, namespace, name, "jsonpath="+jsonpath)
		if err != nil {
			return false, "not found", nil
		}
		return out == want, fmt.Sprintf("%s %s = %q", ref(kind, namespace, name), jsonpath, out), nil
	}
}

// Accepted holds when the API server accepts the manifest (server-side dry run).
func Accepted(manifest string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		_, err := dryRun(ctx, manifest)
		if err != nil {
			return false, "rejected: " + shell.LastLine(err.Error()), nil
		}
		return true, "accepted", nil
	}
}

// Rejected holds when the API server rejects the manifest with a message
// containing substr (server-side dry run: nothing is created).
func Rejected(manifest, substr string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		_, err := dryRun(ctx, manifest)
		if err == nil {
			return false, "accepted", nil
		}
		msg := shell.LastLine(err.Error())
		return strings.Contains(err.Error(), substr), "rejected: " + msg, nil
	}
}

func dryRun(ctx context.Context, manifest string) (string, error) {
	r := From(ctx)
	return shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader(manifest),
		Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "create", "--dry-run=server", "-f", "-"}})
}

func get(ctx context.Context, kind, namespace, name, output string) (string, error) {
	args := []string{"get", kind, name, "-o", output}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	out, err := From(ctx).Kubectl.Run(ctx, args...)
	return strings.TrimSpace(out), err
}

func ref(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}

// ComponentImages builds (offline) a component's images with its recipe,
// images/<component>/build.sh VERSION, and loads them into the cluster.
// Online, the cluster pulls the upstream images itself.
func ComponentImages(component, version string) features.Func {
	return assert.Step("images for "+component+" "+version, func(ctx context.Context) error {
		r := From(ctx)
		if r.Mode != images.Offline {
			return nil
		}
		out, err := shell.Run(ctx, shell.Cmd{Name: filepath.Join(r.Repo, "images", component, "build.sh"), Args: []string{version},
			Env: []string{"CACHE_DIR=" + r.CacheDir}, Progress: r.Out})
		if err != nil {
			return fmt.Errorf("build %s %s images: %w", component, version, err)
		}
		imgs := images.MarkedList(out, "IMAGES:")
		observe(ctx, "offline images for %s %s: %s", component, version, strings.Join(imgs, " "))
		return r.LoadImages(ctx, imgs...)
	})
}

// ServiceAnswers holds when a GET through the API server's service proxy
// (the API server's own path to in-cluster backends) returns a body holding want.
func ServiceAnswers(namespace, service, port, path, want string) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		url := fmt.Sprintf("/api/v1/namespaces/%s/services/%s:%s/proxy%s", namespace, service, port, path)
		out, err := From(ctx).Kubectl.Run(ctx, "get", "--raw", url)
		if err != nil {
			return false, "GET " + url + ": " + shell.LastLine(err.Error()), nil
		}
		return strings.Contains(out, want), "GET " + url + ": " + shell.LastLine(out), nil
	}
}
