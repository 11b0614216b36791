package check

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// Exists holds when the object exists.
func Exists(kind, namespace, name string) assert.Check {
	return assert.Scripted(func(ctx context.Context) (bool, string, error) {
		o, err := lifecycle.Get(ctx, kind, namespace, name)
		if lifecycle.NotFound(err) {
			return false, "not found", nil
		}
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		if m := lifecycle.MetaOf(o); m.DeletionTimestamp != "" {
			return true, "exists, deleting since " + m.DeletionTimestamp, nil
		}
		return true, "exists", nil
	}, static(repro.Exists(kind, namespace, name)))
}

// Missing holds when the object does not exist (the API server said so: a
// read that failed could not tell, see assert.Check).
func Missing(kind, namespace, name string) assert.Check {
	return assert.Scripted(func(ctx context.Context) (bool, string, error) {
		ok, seen, err := Exists(kind, namespace, name)(ctx)
		if err != nil {
			return false, seen, err
		}
		return !ok, seen, nil
	}, static(repro.Missing(kind, namespace, name)))
}

// NoneLeft holds when nothing of kind in namespace matches the label selector.
func NoneLeft(kind, namespace, selector string) assert.Check {
	return assert.Scripted(func(ctx context.Context) (bool, string, error) {
		list, err := lifecycle.From(ctx).Kube.List(ctx, kind, namespace, selector)
		if lifecycle.NotFound(err) {
			return true, "none left (no such resource type)", nil
		}
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		var left []string
		for _, o := range list.Items {
			left = append(left, kind+"/"+o.GetName())
		}
		if len(left) > 0 {
			return false, strings.Join(left, " ") + " left", nil
		}
		return true, "none left", nil
	}, static(repro.NoneLeft(kind, namespace, selector)))
}

// JSONPathIs holds when a kubectl jsonpath over the object prints want (as
// `kubectl get -o jsonpath=` prints it: lists and maps as JSON).
func JSONPathIs(kind, namespace, name, jsonpath, want string) assert.Check {
	return assert.Scripted(jsonPath(kind, namespace, name, jsonpath, func(out string) bool { return out == want }),
		static(repro.JSONPathIs(kind, namespace, name, jsonpath, want)))
}

// JSONPathMatches holds when a kubectl jsonpath over the object matches the
// regular expression re (e.g. "." for non-empty).
func JSONPathMatches(kind, namespace, name, jsonpath, re string) assert.Check {
	return assert.Scripted(jsonPath(kind, namespace, name, jsonpath, regexp.MustCompile(re).MatchString),
		static(repro.JSONPathMatches(kind, namespace, name, jsonpath, re)))
}

// jsonPath holds when the object's jsonpath output satisfies ok; a missing
// object does not, a read that failed could not tell.
func jsonPath(kind, namespace, name, jsonpath string, ok func(string) bool) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		o, err := lifecycle.Get(ctx, kind, namespace, name)
		if lifecycle.NotFound(err) {
			return false, lifecycle.Ref(kind, namespace, name) + " not found", nil
		}
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		out, err := kube.JSONPath(o.Object, jsonpath)
		if err != nil {
			return false, "", err
		}
		return ok(out), fmt.Sprintf("%s %s = %q", lifecycle.Ref(kind, namespace, name), jsonpath, clip(out, 300)), nil
	}
}

// Accepted holds when the API server accepts the manifest (server-side dry
// run). A call the API server did not answer could not tell.
func Accepted(files fixture.Files) assert.Check {
	return assert.Scripted(func(ctx context.Context) (bool, string, error) {
		manifest, err := fixture.Manifest(ctx, files)
		if err != nil {
			return false, "", err
		}
		err = lifecycle.From(ctx).Kube.DryRunCreate(ctx, manifest)
		if !lifecycle.Answered(err) {
			return false, "", assert.Unknown(err)
		}
		if err != nil {
			return false, "rejected: " + shell.LastLine(err.Error()), nil
		}
		return true, "accepted", nil
	}, func(ctx context.Context) (*repro.Check, error) {
		manifest, err := fixture.Manifest(ctx, files)
		return repro.Accepted(manifest), err
	})
}

// Rejected holds when the API server rejects the manifest with a message
// containing substr (server-side dry run: nothing is created).
func Rejected(files fixture.Files, substr string) assert.Check {
	return assert.Scripted(func(ctx context.Context) (bool, string, error) {
		manifest, err := fixture.Manifest(ctx, files)
		if err != nil {
			return false, "", err
		}
		err = lifecycle.From(ctx).Kube.DryRunCreate(ctx, manifest)
		if err == nil {
			return false, "accepted", nil
		}
		if !lifecycle.Answered(err) {
			return false, "", assert.Unknown(err)
		}
		msg := shell.LastLine(err.Error())
		return strings.Contains(err.Error(), substr), "rejected: " + msg, nil
	}, func(ctx context.Context) (*repro.Check, error) {
		manifest, err := fixture.Manifest(ctx, files)
		return repro.Rejected(manifest, substr), err
	})
}

// ServiceAnswers holds when a GET through the API server's service proxy
// (the API server's own path to in-cluster backends) returns a body holding want.
func ServiceAnswers(namespace, service, port, path, want string) assert.Check {
	return assert.Scripted(func(ctx context.Context) (bool, string, error) {
		url := fmt.Sprintf("/api/v1/namespaces/%s/services/%s:%s/proxy%s", namespace, service, port, path)
		out, err := lifecycle.From(ctx).Kube.GetRaw(ctx, url)
		if err != nil {
			return false, "GET " + url + ": " + shell.LastLine(err.Error()), nil
		}
		return strings.Contains(string(out), want), "GET " + url + ": " + shell.LastLine(string(out)), nil
	}, static(repro.ServiceAnswers(namespace, service, port, path, want)))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
