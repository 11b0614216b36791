package kargo

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// variantOf is VariantOf of a variant Feature must handle.
func variantOf(t *testing.T, name string) Variant {
	t.Helper()
	v, ok := VariantOf(name)
	if !ok {
		t.Fatalf("VariantOf(%q): unknown (valid: %v)", name, Variants)
	}
	return v
}

func TestVariants(t *testing.T) {
	if _, ok := VariantOf("nope"); ok {
		t.Fatal(`VariantOf("nope") is known: an unknown variant must not run as another`)
	}
	if v := variantOf(t, "bug"); v.OnProject || v.OnNamespace || len(v.DeleteArgs) != 0 || v.ViaArgoCD() {
		t.Fatalf("bug must carry no mitigation and delete the kubectl way: %+v", v)
	}
	if v := variantOf(t, "keep-namespace"); !v.OnProject || v.OnNamespace || len(v.DeleteArgs) != 0 || v.ViaArgoCD() {
		t.Fatalf("keep-namespace: %+v", v)
	}
	if v := variantOf(t, "keep-namespace-foreground"); !v.OnProject || !slices.Equal(v.DeleteArgs, []string{"--cascade=foreground"}) {
		t.Fatalf("foreground must delete in the foreground: %+v", v)
	}
	for name, held := range map[string]string{"keep-namespace-foreground": "", "keep-namespace-foreground-kargo-late": HeldKargo, "keep-namespace-foreground-gc-late": HeldGC} {
		if v := variantOf(t, name); !v.OnProject || v.Held != held || !slices.Equal(v.DeleteArgs, []string{"--cascade=foreground"}) || v.ViaArgoCD() {
			t.Fatalf("%s must delete in the foreground by kubectl, holding %q: %+v", name, held, v)
		}
	}
	if v := variantOf(t, "keep-namespace-on-namespace"); v.OnProject || !v.OnNamespace {
		t.Fatalf("on-namespace: %+v", v)
	}
	for name, by := range map[string]string{"keep-namespace-argocd-prune": ByArgoCDPrune, "keep-namespace-argocd-cascade": ByArgoCDCascade} {
		if v := variantOf(t, name); !v.OnProject || v.By != by || !v.ViaArgoCD() || len(v.DeleteArgs) != 0 {
			t.Fatalf("%s: %+v", name, v)
		}
	}
}

type meta struct {
	Kind     string
	Metadata struct {
		Name, Namespace string
		Labels          map[string]string
		Annotations     map[string]string
	}
}

func render(t *testing.T, files fixture.Files) []meta {
	t.Helper()
	m, err := fixture.Manifest(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	var out []meta
	for _, doc := range strings.Split(m, "\n---\n") {
		if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
			continue
		}
		var o meta
		if err := yaml.Unmarshal([]byte(strings.TrimPrefix(doc, "---\n")), &o); err != nil {
			t.Fatalf("invalid YAML: %v\n%s", err, doc)
		}
		out = append(out, o)
	}
	return out
}

func TestTeamFixtures(t *testing.T) {
	for _, name := range []string{"bug", "keep-namespace", "keep-namespace-on-namespace"} {
		v := variantOf(t, name)
		objs := append(render(t, TeamNamespace(v)), render(t, Project(v))...)
		if objs[0].Kind != "Namespace" {
			t.Fatalf("%s: the Namespace must come first (one apply creates it, then what is in it): %s", name, objs[0].Kind)
		}
		var kinds []string
		for _, o := range objs {
			kinds = append(kinds, o.Kind)
			_, annotated := o.Metadata.Annotations["kargo.akuity.io/keep-namespace"]
			switch o.Kind {
			case "Namespace":
				if o.Metadata.Name != Team || o.Metadata.Labels["kargo.akuity.io/project"] != "true" || annotated != v.OnNamespace {
					t.Errorf("%s: namespace %+v", name, o.Metadata)
				}
			case "Project":
				if o.Metadata.Name != Team || annotated != v.OnProject {
					t.Errorf("%s: project %+v", name, o.Metadata)
				}
			default:
				if o.Metadata.Namespace != Team {
					t.Errorf("%s: %s not in %s", name, o.Kind, Team)
				}
			}
		}
		slices.Sort(kinds)
		if !slices.Equal(kinds, []string{"ConfigMap", "Namespace", "Project", "Secret"}) {
			t.Errorf("%s: kinds %v", name, kinds)
		}
	}
	files, err := Repository(variantOf(t, "keep-namespace-argocd-prune"), false)(context.Background())
	if err != nil || len(files) != 1 || files["README.md"] == "" {
		t.Fatalf("the repository without the Project: %v %v", files, err)
	}
	a, err := Application().Render()
	if err != nil || a.Name != Team || a.Spec.Destination.Namespace != "" || a.Spec.SyncPolicy != nil {
		t.Fatalf("application: %+v %v", a, err)
	}
}

func TestAdminValuesAreFreshAndHashed(t *testing.T) {
	a, err := AdminValues(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := AdminValues(context.Background())
	ha := a["api"].(map[string]any)["adminAccount"].(map[string]any)
	hb := b["api"].(map[string]any)["adminAccount"].(map[string]any)
	if ha["tokenSigningKey"] == hb["tokenSigningKey"] || !strings.HasPrefix(ha["passwordHash"].(string), "$2a$") {
		t.Fatalf("values must be generated per run and the password bcrypt-hashed: %v", ha["passwordHash"])
	}
}

func TestOfflineValuesAndCertificate(t *testing.T) {
	tls := WebhookTLS()
	v, err := OfflineValues("v1.11.2", tls)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	img := v["image"].(map[string]any)
	if img["repository"] != "ghcr.io/akuity/kargo" || img["tag"] != "v1.11.2" {
		t.Fatalf("image: %v", img)
	}
	wt := v["webhooksServer"].(map[string]any)["tls"].(map[string]any)
	if wt["selfSignedCert"] != false {
		t.Fatalf("webhooks server: %v", wt)
	}
	if _, ok := v["api"].(map[string]any)["adminAccount"].(map[string]any)["passwordHash"]; !ok {
		t.Fatal("admin credentials missing")
	}
	block, _ := pem.Decode([]byte(wt["caBundle"].(string)))
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil || !ca.IsCA {
		t.Fatalf("caBundle: %v", err)
	}
	files, err := tls.Secret()(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var secret struct {
		Type     string
		Metadata struct{ Name, Namespace string }
		Data     map[string][]byte
	}
	for _, m := range files {
		if err := yaml.Unmarshal([]byte(m), &secret); err != nil {
			t.Fatal(err)
		}
	}
	if secret.Type != "kubernetes.io/tls" || secret.Metadata.Name != "kargo-webhooks-server-cert" || secret.Metadata.Namespace != Namespace {
		t.Fatalf("secret: %+v", secret.Metadata)
	}
	block, _ = pem.Decode(secret.Data["tls.crt"])
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "kargo-webhooks-server.kargo.svc", Roots: pool}); err != nil {
		t.Fatalf("the serving certificate must verify for the service against the caBundle: %v", err)
	}
}

// An Application's values carry the webhook certificate's Secret in the
// chart's extraObjects (the chart sets the caBundle from v1.7 on); older
// charts are refused.
func TestApplicationValues(t *testing.T) {
	v, err := ApplicationValues(context.Background(), "v1.11.2")
	if err != nil {
		t.Fatal(err)
	}
	extra, _ := v["extraObjects"].([]any)
	if len(extra) != 1 {
		t.Fatalf("extraObjects: %v", v["extraObjects"])
	}
	secret := extra[0].(map[string]any)
	meta := secret["metadata"].(map[string]any)
	if secret["kind"] != "Secret" || secret["type"] != "kubernetes.io/tls" || meta["name"] != "kargo-webhooks-server-cert" || meta["namespace"] != Namespace {
		t.Errorf("the certificate's Secret: %v", secret)
	}
	if ca := v["webhooksServer"].(map[string]any)["tls"].(map[string]any)["caBundle"]; ca == "" {
		t.Error("no caBundle")
	}
	if _, err := ApplicationValues(context.Background(), "v1.6.0"); err == nil || !strings.Contains(err.Error(), "from v1.7.0 on") {
		t.Errorf("v1.6.0: %v", err)
	}
}

func TestRelease(t *testing.T) {
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	src, err := SourcesOf(cat)
	if err != nil || src.Chart == "" || !strings.Contains(src.CertManagerURL, "cert-manager") || strings.Contains(src.CertManagerURL, "{version}") {
		t.Fatalf("sources: %+v %v", src, err)
	}
	if r := Release(src.Chart, "v1.9.3"); r.Version != "1.9.3" || r.Chart != src.Chart {
		t.Fatalf("release = %+v", r)
	}
}

// The real chart, per release on the axis, from Kargo's sources on this
// machine (KARGO_SOURCES, else the catalog's default, as the Makefile has it): the offline values render
// the image built from the tree, the suite's certificate Secret and no
// cert-manager object. Not in -short (make unit); without -short the sources
// must be there: a run that asks for this test and lacks them fails.
func TestRealChart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: renders Kargo's chart from its source trees (" + SourcesEnv + ")")
	}
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	comp, _ := cat.Component("kargo")
	repo, _ := filepath.Abs("../..")
	dir := comp.Sources.Path(repo)
	if dir == "" {
		t.Fatal(SourcesEnv + " is not set: set it to a directory holding Kargo's source tree of each release on the axis " +
			"(kargo-<tag>/ or kargo-<tag>.tar.gz; the Makefile and this test use ../shared/upstream/kargo when that exists), or run with -short")
	}
	t.Setenv(SourcesEnv, dir)
	cache := t.TempDir()
	for _, tag := range comp.Versions {
		t.Run(tag, func(t *testing.T) {
			ctx := lifecycle.WithRun(context.Background(), &lifecycle.Run{Repo: repo, CacheDir: cache, Catalog: cat, Mode: images.Offline})
			ctx, _ = lifecycle.WithCell(ctx, t.TempDir())
			chart := fixture.TreeDir(fixture.UserTree(SourcesEnv, "kargo", tag, "charts/kargo/Chart.yaml"), "charts/kargo")
			values, err := OfflineValues(tag, WebhookTLS())(ctx)
			if err != nil {
				t.Fatal(err)
			}
			rel := OfflineRelease()
			rel.Values = values
			f, err := fixture.HelmRender(chart, rel)(ctx)
			if err != nil {
				t.Fatal(err)
			}
			m := f["install.yaml"]
			if !strings.Contains(m, "image: ghcr.io/akuity/kargo:"+tag) || !strings.Contains(m, "/usr/local/bin/kargo") {
				t.Errorf("the rendered chart must run the image built from the tree")
			}
			for _, none := range []string{"cert-manager.io/v1", "kind: Ingress"} {
				if strings.Contains(m, none) {
					t.Errorf("the rendered chart holds %q", none)
				}
			}
			if !strings.Contains(m, "kargo-webhooks-server-cert") {
				t.Error("the webhooks server must mount the suite's certificate Secret")
			}
			if catalog.CompareTags(tag, "v1.7.0") < 0 {
				return
			}
			// as an Application installs it: the Secret in the release, the caBundle set by the chart
			if rel.Values, err = ApplicationValues(ctx, tag); err != nil {
				t.Fatal(err)
			}
			f, err = fixture.HelmRender(chart, rel)(ctx)
			if err != nil {
				t.Fatal(err)
			}
			m = f["install.yaml"]
			if !strings.Contains(m, "kind: Secret\nmetadata:\n  name: kargo-webhooks-server-cert\n  namespace: kargo\ntype: kubernetes.io/tls") ||
				!strings.Contains(m, "caBundle: ") {
				t.Error("the Application's values must render the certificate's Secret and the webhooks' caBundle")
			}
		})
	}
}
