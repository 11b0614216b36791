package check

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gitops-conformance/suite/internal/kube"
	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/internal/text"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// Exists holds when the object exists.
func Exists(obj lifecycle.Object) assert.Check {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return describe(obj, "exists", assert.Scripted(func(ctx context.Context) (bool, string, error) {
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
	}, static(repro.Exists(kind, namespace, name))))
}

// Missing holds when the object does not exist (the API server said so: a
// read that failed could not tell, see assert.Check).
func Missing(obj lifecycle.Object) assert.Check {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return describe(obj, "gone", assert.Scripted(func(ctx context.Context) (bool, string, error) {
		ok, seen, err := Exists(obj)(ctx)
		if err != nil {
			return false, seen, err
		}
		return !ok, seen, nil
	}, static(repro.Missing(kind, namespace, name))))
}

// NoneLeft holds when nothing of the selection is left (one kind).
func NoneLeft(sel lifecycle.Selection) assert.Check {
	kind, namespace, selector := sel.Kinds, sel.Namespace, sel.Labels
	return assert.NamedOf(assert.Description{Of: sel.String(), Is: "none left"}, assert.Scripted(func(ctx context.Context) (bool, string, error) {
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
	}, static(repro.NoneLeft(kind, namespace, selector))))
}

// JSONPathIs holds when a kubectl jsonpath over the object prints want (as
// `kubectl get -o jsonpath=` prints it: lists and maps as JSON).
func JSONPathIs(obj lifecycle.Object, jsonpath, want string) assert.Check {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	return describe(obj, jsonpath+" = "+strconv.Quote(want), assert.Scripted(jsonPath(obj, jsonpath, func(out string) bool { return out == want }),
		static(repro.JSONPathIs(kind, namespace, name, jsonpath, want))))
}

// JSONPathMatches holds when a kubectl jsonpath over the object matches the
// regular expression re (e.g. "." for non-empty).
func JSONPathMatches(obj lifecycle.Object, jsonpath, re string) assert.Check {
	kind, namespace, name := obj.Kind, obj.Namespace, obj.Name
	is := jsonpath + " matches " + strconv.Quote(re)
	if re == "." {
		is = jsonpath + " set"
	}
	return describe(obj, is, assert.Scripted(jsonPath(obj, jsonpath, regexp.MustCompile(re).MatchString),
		static(repro.JSONPathMatches(kind, namespace, name, jsonpath, re))))
}

// jsonPath holds when the object's jsonpath output satisfies ok; a missing
// object does not, a read that failed could not tell.
func jsonPath(obj lifecycle.Object, jsonpath string, ok func(string) bool) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		o, err := lifecycle.Get(ctx, obj.Kind, obj.Namespace, obj.Name)
		if lifecycle.NotFound(err) {
			return false, obj.String() + " not found", nil
		}
		if err != nil {
			return false, "", assert.Unknown(err)
		}
		out, err := kube.JSONPath(o.Object, jsonpath)
		if err != nil {
			return false, "", err
		}
		return ok(out), fmt.Sprintf("%s %s = %q", obj, jsonpath, text.Clip(out, 300)), nil
	}
}

// Accepted holds when the API server accepts the manifest (server-side dry
// run). A call the API server did not answer could not tell. A manifest has
// no name of its own: a step names what it is (assert.That's label, or
// assert.Named).
func Accepted(files fixture.Files) assert.Check {
	return assert.Named("the manifest accepted (server-side dry run)", assert.Scripted(func(ctx context.Context) (bool, string, error) {
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
	}))
}

// Rejected holds when the API server rejects the manifest with a message
// containing substr (server-side dry run: nothing is created).
func Rejected(files fixture.Files, substr string) assert.Check {
	return assert.Named("the manifest rejected with "+strconv.Quote(substr)+" (server-side dry run)", assert.Scripted(func(ctx context.Context) (bool, string, error) {
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
	}))
}

// ServiceAnswers holds when a GET of path on the service's port, through
// the API server's service proxy (the API server's own path to in-cluster
// backends), returns a body holding want.
func ServiceAnswers(svc lifecycle.Object, port, path, want string) assert.Check {
	namespace, service := svc.Namespace, svc.Name
	return describe(svc, fmt.Sprintf("answers GET :%s%s with %q", port, path, want), assert.Scripted(func(ctx context.Context) (bool, string, error) {
		url := fmt.Sprintf("/api/v1/namespaces/%s/services/%s:%s/proxy%s", namespace, service, port, path)
		out, err := lifecycle.From(ctx).Kube.GetRaw(ctx, url)
		if err != nil {
			return false, "GET " + url + ": " + shell.LastLine(err.Error()), nil
		}
		return strings.Contains(string(out), want), "GET " + url + ": " + shell.LastLine(string(out)), nil
	}, static(repro.ServiceAnswers(namespace, service, port, path, want))))
}

// Field is a field of one object, as a kubectl jsonpath reads it: a name
// for what a scenario reads more than once.
type Field struct {
	Of   lifecycle.Object
	Path string // a kubectl jsonpath, e.g. {.status.phase}
}

// Is holds when the field prints want (JSONPathIs).
func (f Field) Is(want string) assert.Check { return JSONPathIs(f.Of, f.Path, want) }

// Matches holds when the field matches the regular expression re (JSONPathMatches).
func (f Field) Matches(re string) assert.Check { return JSONPathMatches(f.Of, f.Path, re) }
