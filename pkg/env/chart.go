package env

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v2/pkg/apis/application/v1alpha1"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/cli"
	"sigs.k8s.io/e2e-framework/pkg/envconf"
	"sigs.k8s.io/e2e-framework/pkg/features"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/assert"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/shell"
)

// Helm charts kept outside any Go module (a project's chart repository):
// offline the user names where they are, online the chart repository serves
// them. The chart's files travel as Files, so one chart feeds the Helm SDK
// and, pushed to the in-cluster git server, an ArgoCD Application alike.

// SourceMissing is an input the user has to provide; a cell that lacks it is
// SKIPPED (see Provided), never run on a stand-in.
type SourceMissing struct{ Why string }

func (e *SourceMissing) Error() string { return e.Why }

// UserChart is the chart chartName at chartVersion of a component, keyed by
// slash path relative to the chart's root. Offline it comes from the source
// the environment variable envVar names (a relative path is taken from the
// suite's checkout): a directory holding the catalog's "chart" path
// ({version} is the chart version), such as a checkout of the charts
// repository, or that directory one level down, or a .tar.gz/.tgz archive of
// either (a `helm package` archive too), or a directory of such archives.
// Archives are extracted once into the cache directory, never into the
// checkout. Online it is the chart of the component's chart repository (the
// catalog's onlineURL), pulled through the Helm SDK. The source goes into the
// report.
func UserChart(envVar, component, chartName, chartVersion string) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		r := From(ctx)
		comp, rel, err := r.Catalog.File(component, "chart")
		if err != nil {
			return nil, err
		}
		rel = strings.ReplaceAll(rel, "{version}", chartVersion)
		var dir, src string
		if r.Mode == images.Offline {
			dir, src, err = localChart(r, envVar, rel, chartName, chartVersion)
		} else {
			dir, src, err = repoChart(r, comp.OnlineURL, chartName, chartVersion)
		}
		if err != nil {
			return nil, err
		}
		files, err := ReadTree(dir)
		if err != nil {
			return nil, fmt.Errorf("read chart %s %s: %w", chartName, chartVersion, err)
		}
		observe(ctx, "source: %s chart %s %s (%d files) from %s", component, chartName, chartVersion, len(files), src)
		return files, nil
	})
}

// localChart finds the chart in the user's source.
func localChart(r *Run, envVar, rel, chartName, chartVersion string) (dir, src string, err error) {
	want := fmt.Sprintf("chart %s %s", chartName, chartVersion)
	provide := fmt.Sprintf("set %s to a directory holding %s (a checkout of the chart's repository), an archive (.tar.gz) of one, or a directory of such archives", envVar, rel)
	root := os.Getenv(envVar)
	if root == "" {
		return "", "", &SourceMissing{fmt.Sprintf("offline, %s comes from %s, which is not set: %s", want, envVar, provide)}
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(r.Repo, root)
	}
	st, err := os.Stat(root)
	if err != nil {
		return "", "", &SourceMissing{fmt.Sprintf("offline, %s comes from %s=%s: %v; %s", want, envVar, root, err, provide)}
	}
	var archives []string
	if st.IsDir() {
		if dir := findChart(root, rel, chartName, chartVersion); dir != "" {
			return dir, fmt.Sprintf("%s=%s (directory %s)", envVar, root, dir), nil
		}
		for _, pattern := range []string{"*.tar.gz", "*.tgz"} {
			m, _ := filepath.Glob(filepath.Join(root, pattern))
			archives = append(archives, m...)
		}
	} else {
		archives = []string{root}
	}
	for _, a := range archives {
		out, sum, err := extract(a, filepath.Join(r.CacheDir, "charts"))
		if err != nil {
			return "", "", fmt.Errorf("%s=%s: %w", envVar, root, err)
		}
		if dir := findChart(out, rel, chartName, chartVersion); dir != "" {
			return dir, fmt.Sprintf("%s=%s (archive %s, sha256 %s, extracted to %s)", envVar, root, filepath.Base(a), sum, dir), nil
		}
	}
	return "", "", &SourceMissing{fmt.Sprintf("offline, %s is not in %s=%s (looked for %s in it, one directory down and in its .tar.gz/.tgz archives): %s",
		want, envVar, root, rel, provide)}
}

// findChart looks for the chart at rel under dir or one directory down, and
// for a `helm package` layout (<chart>/Chart.yaml); the Chart.yaml must name
// the chart and version asked for.
func findChart(dir, rel, chartName, chartVersion string) string {
	bases := []string{dir}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if e.IsDir() {
				bases = append(bases, filepath.Join(dir, e.Name()))
			}
		}
	}
	for _, b := range bases {
		for _, p := range []string{filepath.Join(b, filepath.FromSlash(rel)), filepath.Join(b, chartName)} {
			if chartIs(p, chartName, chartVersion) {
				return p
			}
		}
	}
	return ""
}

func chartIs(dir, chartName, chartVersion string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return false
	}
	var meta struct{ Name, Version string }
	return yaml.Unmarshal(data, &meta) == nil && meta.Name == chartName && meta.Version == chartVersion
}

// extract unpacks a .tar.gz once into under/<name>-<sha256 prefix>/ and
// returns that directory and the archive's sha256 prefix. Only regular files
// and directories are written, none outside the destination.
func extract(archive, under string) (string, string, error) {
	data, err := os.ReadFile(archive)
	if err != nil {
		return "", "", err
	}
	h := sha256.Sum256(data)
	sum := hex.EncodeToString(h[:])[:16]
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(archive), ".tgz"), ".tar.gz")
	dest := filepath.Join(under, name+"-"+sum)
	if _, err := os.Stat(filepath.Join(dest, ".extracted")); err == nil {
		return dest, sum, nil
	}
	if err := os.MkdirAll(under, 0o755); err != nil {
		return "", "", err
	}
	tmp, err := os.MkdirTemp(under, name+".tmp-")
	if err != nil {
		return "", "", err
	}
	defer os.RemoveAll(tmp)
	if err := untar(bytes.NewReader(data), tmp); err != nil {
		return "", "", fmt.Errorf("extract %s: %w", archive, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, ".extracted"), []byte(archive+"\n"), 0o644); err != nil {
		return "", "", err
	}
	_ = os.RemoveAll(dest)
	if err := os.Rename(tmp, dest); err != nil {
		return "", "", err
	}
	return dest, sum, nil
}

func untar(r io.Reader, dest string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(filepath.FromSlash(hdr.Name))
		if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
			return fmt.Errorf("entry %q leaves the archive's directory", hdr.Name)
		}
		path := filepath.Join(dest, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
	}
}

// repoChart pulls the chart from its repository into the cache and extracts it.
func repoChart(r *Run, repoURL, chartName, chartVersion string) (string, string, error) {
	settings := cli.New()
	settings.RepositoryCache = filepath.Join(r.CacheDir, "helm", "repository")
	settings.RepositoryConfig = filepath.Join(r.CacheDir, "helm", "repositories.yaml")
	opts := action.ChartPathOptions{RepoURL: repoURL, Version: chartVersion}
	archive, err := opts.LocateChart(chartName, settings)
	if err != nil {
		return "", "", fmt.Errorf("locate chart %s %s in %s: %w", chartName, chartVersion, repoURL, err)
	}
	out, sum, err := extract(archive, filepath.Join(r.CacheDir, "charts"))
	if err != nil {
		return "", "", err
	}
	dir := findChart(out, chartName, chartName, chartVersion)
	if dir == "" {
		return "", "", fmt.Errorf("chart %s %s from %s: no Chart.yaml of that version in %s", chartName, chartVersion, repoURL, archive)
	}
	return dir, fmt.Sprintf("%s (Helm SDK, archive sha256 %s)", repoURL, sum), nil
}

// Provided resolves files before anything else runs: an input the user has
// not provided (SourceMissing) ends the cell SKIPPED with what to provide;
// any other error is an ERROR of the run.
func Provided(what string, files Files) features.Func {
	return func(ctx context.Context, t *testing.T, _ *envconf.Config) context.Context {
		t.Helper()
		_, err := files(ctx)
		var missing *SourceMissing
		switch {
		case errors.As(err, &missing):
			CellFrom(ctx).Step("skipped: %s", missing.Why)
			assert.RecordFrom(ctx).Skip(missing.Why)
			t.Skip(missing.Why)
		case err != nil:
			assert.RecordFrom(ctx).Fail(fmt.Sprintf("%s: %v", what, err))
			t.Fatalf("%s: %v", what, err)
		}
		return ctx
	}
}

// OfflinePullPolicy: offline, images are built and loaded into the node,
// there is no registry to pull from, so a chart template's hard-coded
// `imagePullPolicy: Always` becomes IfNotPresent (as the ArgoCD install's
// is). Every change is recorded; online the chart is left as it is.
func OfflinePullPolicy(chart Files) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		f, err := chart(ctx)
		if err != nil || From(ctx).Mode != images.Offline {
			return f, err
		}
		out := make(map[string]string, len(f))
		var changed []string
		for name, content := range f {
			if strings.HasPrefix(name, "templates/") {
				if n := strings.Count(content, "imagePullPolicy: Always"); n > 0 {
					content = strings.ReplaceAll(content, "imagePullPolicy: Always", "imagePullPolicy: IfNotPresent")
					changed = append(changed, fmt.Sprintf("%s (%d)", name, n))
				}
			}
			out[name] = content
		}
		if len(changed) > 0 {
			observe(ctx, "offline: the chart's imagePullPolicy: Always made IfNotPresent (images loaded into the node, no registry): %s", strings.Join(changed, ", "))
		}
		return out, nil
	})
}

// writeChart writes a chart's files into a new directory under the cache's tmp/.
func writeChart(r *Run, name string, files map[string]string) (string, error) {
	tmp := filepath.Join(r.CacheDir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(tmp, "chart-"+name+"-")
	if err != nil {
		return "", err
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// HelmRender renders a chart's files client-side with the release's name,
// namespace and values (as `helm install --dry-run`), as {"install.yaml": manifest}.
func HelmRender(chart Files, rel helm.Release) Files {
	return once(func(ctx context.Context) (map[string]string, error) {
		r := From(ctx)
		f, err := chart(ctx)
		if err != nil {
			return nil, err
		}
		dir, err := writeChart(r, rel.Name, f)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		rel.Chart = dir
		manifest, err := helm.Render(ctx, rel)
		if err != nil {
			return nil, err
		}
		return map[string]string{"install.yaml": manifest}, nil
	})
}

// HelmInstallChart installs a chart's files as release rel through the Helm
// SDK (rel.NoWait: without waiting, as `helm install` without --wait); the
// cell uninstalls it at its end (rel.NoHooks: without the delete hooks). The
// values are recorded: they are the user's, not credentials.
func HelmInstallChart(rel helm.Release, chart Files) features.Func {
	return assert.Step("helm install "+rel.Namespace+"/"+rel.Name, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		f, err := chart(ctx)
		if err != nil {
			return err
		}
		dir, err := writeChart(r, rel.Name, f)
		if err != nil {
			return err
		}
		rel.Chart = dir
		if rel.Timeout == 0 {
			rel.Timeout = assert.Intervals.Install
		}
		values, _ := json.Marshal(rel.Values)
		c.Defer("helm uninstall "+rel.Name, func(context.Context) error {
			defer os.RemoveAll(dir)
			return helm.UninstallRelease(r.Kubectl.Kubeconfig, rel, io.Discard)
		})
		observe(ctx, "helm install %s into %s (Helm SDK; wait %v, --create-namespace %v), values %s", rel.Name, rel.Namespace, !rel.NoWait, !rel.ExistingNamespace, values)
		return helm.Install(ctx, r.Kubectl.Kubeconfig, rel, r.Out)
	})
}

// UpdateApp changes an existing Application's spec the way a user edits it
// (in Git, for an app-of-apps), retrying on conflicts; the new spec is recorded.
func UpdateApp(name, what string, mutate func(*v1alpha1.Application)) features.Func {
	return assert.Step("update application "+argocd.Namespace+"/"+name+": "+what, func(ctx context.Context) error {
		r, c := From(ctx), CellFrom(ctx)
		var spec []byte
		err := r.Apps.Update(ctx, name, func(app *v1alpha1.Application) {
			mutate(app)
			spec, _ = json.Marshal(app.Spec)
		})
		if err != nil {
			return err
		}
		observe(ctx, "application %s: %s", name, what)
		c.Step("update application %s: %s", name, spec)
		return nil
	})
}

// RemoveRendered deletes whatever of a rendered chart exists, last document
// first (a rendering lists webhook configurations last: they go before the
// objects they guard). At the start of a cell it clears what an earlier run
// left; RemoveRenderedAtEnd does it when the cell ends.
func RemoveRendered(what string, rendered Files) features.Func {
	return assert.Step("delete what is left of "+what, func(ctx context.Context) error {
		CellFrom(ctx).Step("delete what is left of %s", what)
		return removeRendered(ctx, what, rendered)
	})
}

// RemoveRenderedAtEnd registers RemoveRendered as a cleanup: registered
// first, it runs last, after the release or Application that installed the
// chart is gone, for what they leave behind.
func RemoveRenderedAtEnd(what string, rendered Files) features.Func {
	return assert.Step("at the end, delete what is left of "+what, func(ctx context.Context) error {
		CellFrom(ctx).Step("at the end, delete what is left of %s", what)
		CellFrom(ctx).Defer("delete what is left of "+what, func(ctx context.Context) error {
			return removeRendered(ctx, what, rendered)
		})
		return nil
	})
}

func removeRendered(ctx context.Context, what string, rendered Files) error {
	r := From(ctx)
	f, err := rendered(ctx)
	if err != nil {
		return err
	}
	var docs []string
	for _, name := range fileOrder(f) {
		for _, d := range strings.Split("\n"+f[name], "\n---") {
			if strings.Contains(d, "kind:") {
				docs = append(docs, strings.TrimSpace(d))
			}
		}
	}
	for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
		docs[i], docs[j] = docs[j], docs[i]
	}
	out, err := shell.Run(ctx, shell.Cmd{Name: r.Kubectl.Bin, Stdin: strings.NewReader("---\n" + strings.Join(docs, "\n---\n") + "\n"),
		Args: []string{"--kubeconfig", r.Kubectl.Kubeconfig, "delete", "--ignore-not-found", "--wait=true", "--timeout=2m", "-f", "-"}})
	if out = strings.TrimSpace(out); out != "" {
		r.Logf("delete what is left of %s: %s", what, strings.ReplaceAll(out, "\n", "; "))
	}
	return err
}

// ServingEndpoints holds when the Service has n serving endpoints
// (EndpointSlices): ready ones and terminating ones still serving, which
// kube-proxy sends traffic to when no ready one is left. Zero means nothing
// answers behind the Service any more.
func ServingEndpoints(namespace, service string, n int) assert.Check {
	return func(ctx context.Context) (bool, string, error) {
		out, err := From(ctx).Kubectl.Run(ctx, "get", "endpointslices", "-n", namespace, "-l", "kubernetes.io/service-name="+service,
			"-o", `jsonpath={range .items[*].endpoints[*]}{.conditions.serving}{" "}{.addresses[0]}{"\n"}{end}`)
		if err != nil {
			return false, "", fmt.Errorf("list endpointslices of %s/%s: %w", namespace, service, err)
		}
		serving := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "true ") {
				serving++
			}
		}
		return serving == n, fmt.Sprintf("service %s/%s: %d serving endpoint(s)", namespace, service, serving), nil
	}
}
