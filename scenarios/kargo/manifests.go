package kargo

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/crypto/bcrypt"
	"sigs.k8s.io/yaml"

	"github.com/gitops-conformance/suite/pkg/env"
	"github.com/gitops-conformance/suite/pkg/fixture"
	"github.com/gitops-conformance/suite/pkg/matrix"
)

// Team is the namespace and Project name (and, in the ArgoCD variants, the
// Application's and its repository's).
const Team = "kargo-team-a"

// Finalizer is what Kargo puts on a Project and on the namespace it adopted.
const Finalizer = "kargo.akuity.io/finalizer"

// SourcesEnv names, offline, where Kargo's source trees come from (see
// fixture.UserTree): a directory holding kargo-<tag>/ checkouts or
// kargo-<tag>.tar.gz archives of github.com/akuity/kargo. The Makefile sets
// it to ../shared/upstream/kargo when that exists.
const SourcesEnv = "KARGO_SOURCES"

// Namespace is where Kargo is installed; webhookService serves its
// Kubernetes webhooks with the certificate in webhookSecret.
const (
	Namespace      = "kargo"
	webhookService = "kargo-webhooks-server"
	webhookSecret  = "kargo-webhooks-server-cert"
	// Controller is the workload that deletes a Project and its namespace
	// (internal/controller/management/projects up to v1.6,
	// pkg/controller/management/projects later); ControllerPods select its Pods.
	Controller     = "deploy/" + controller
	controller     = "kargo-management-controller"
	ControllerPods = "app.kubernetes.io/component=management-controller"
	// GarbageCollector is the control-plane component whose garbage
	// collector deletes a foreground-deleted owner's dependents.
	GarbageCollector = "kube-controller-manager"
)

// Sources are where the online path installs from: the catalog's kargo and
// cert-manager entries.
type Sources struct {
	Chart          string // Kargo's chart (OCI)
	CertManagerURL string // cert-manager's release manifest
}

// SourcesOf reads the sources from the catalog.
func SourcesOf(cat *env.Catalog) (Sources, error) {
	kargo, err := cat.Component("kargo")
	if err != nil {
		return Sources{}, err
	}
	cm, err := cat.Component("cert-manager")
	if err != nil {
		return Sources{}, err
	}
	if len(cm.Versions) == 0 {
		return Sources{}, fmt.Errorf("the catalog pins no cert-manager version")
	}
	return Sources{Chart: kargo.OnlineURL, CertManagerURL: strings.ReplaceAll(cm.OnlineURL, "{version}", cm.Versions[0])}, nil
}

// How a variant deletes the Project.
const (
	ByKubectl       = "kubectl"        // kubectl delete (DeleteArgs choose the propagation)
	ByArgoCDPrune   = "argocd-prune"   // removed from the Application's Git repository, pruned by a sync
	ByArgoCDCascade = "argocd-cascade" // the Application deleted with cascade (foreground, as `argocd app delete` does)
)

// Which actor a variant holds back while the Project is deleted in the
// foreground, staging akuity/kargo#4627's race one way. On v1.6.0 the adopted
// namespace carries an ownerReference to the Project (blockOwnerDeletion:
// false) until Kargo's Project reconciler, on seeing the Project's
// deletionTimestamp, drops it (cleanupProject, with the keep annotation),
// then its finalizer from the namespace, then from the Project. The garbage
// collector, on seeing the Project's foregroundDeletion, deletes every
// dependent whose owner still waits for it. Whoever acts first decides.
const (
	// HeldKargo: Kargo's management controller is scaled to 0 before the
	// deletion and back once the garbage collector has finished with the
	// Project (only Kargo's finalizer left on it): the collector acts first, as
	// when Kargo is down, restarting or behind its queue at the deletion (an
	// upgrade of Kargo, a crash loop, a slow leader election).
	HeldKargo = "kargo"
	// HeldGC: kube-controller-manager's static Pod is taken off the node before
	// the deletion and put back once Kargo has finished with the Project (only
	// foregroundDeletion left on it): Kargo acts first, as when the garbage
	// collector is behind (kube-controller-manager restarting or failing over
	// its leadership, a long collection backlog), and as Kargo did in 4 of the
	// 5 natural-timing runs of 20261122-230608.
	HeldGC = "gc"
)

// Variant says where the annotation goes, how the Project is deleted and
// which actor, if any, is held back meanwhile.
type Variant struct {
	OnProject, OnNamespace bool
	By                     string
	DeleteArgs             []string
	Held                   string // HeldKargo, HeldGC or none
}

// ViaArgoCD tells whether the Project lives in an Application's repository.
func (v Variant) ViaArgoCD() bool { return v.By != ByKubectl }

// variants are what each variant does, by name.
var variants = map[string]Variant{
	matrix.Bug:                             {By: ByKubectl},
	"keep-namespace":                       {OnProject: true, By: ByKubectl},
	"keep-namespace-foreground":            {OnProject: true, By: ByKubectl, DeleteArgs: []string{"--cascade=foreground"}},
	"keep-namespace-foreground-kargo-late": {OnProject: true, By: ByKubectl, DeleteArgs: []string{"--cascade=foreground"}, Held: HeldKargo},
	"keep-namespace-foreground-gc-late":    {OnProject: true, By: ByKubectl, DeleteArgs: []string{"--cascade=foreground"}, Held: HeldGC},
	"keep-namespace-on-namespace":          {OnNamespace: true, By: ByKubectl},
	"keep-namespace-argocd-prune":          {OnProject: true, By: ByArgoCDPrune},
	"keep-namespace-argocd-cascade":        {OnProject: true, By: ByArgoCDCascade},
}

// Variants are the variants Feature handles (suites.Matrix checks that
// matrix.yaml declares exactly these).
var Variants = slices.Sorted(maps.Keys(variants))

// VariantOf maps a variant name to what it does; ok is false for a name
// Feature does not handle.
func VariantOf(name string) (v Variant, ok bool) {
	v, ok = variants[name]
	return v, ok
}

// TeamNamespace is the pre-created namespace with what a team keeps in it
// (fixtures/charts/kargo-team).
func TeamNamespace(v Variant) fixture.Files {
	return fixture.Chart("kargo-team", map[string]any{"name": Team, "namespace": true, "keepOnNamespace": v.OnNamespace})
}

// Project is the Kargo Project adopting the namespace (fixtures/charts/kargo-team).
func Project(v Variant) fixture.Files {
	return fixture.Chart("kargo-team", map[string]any{"name": Team, "project": true, "keepOnProject": v.OnProject})
}

// Repository is the Application's repository: the Project, or (removed from
// Git) only a README.
func Repository(v Variant, withProject bool) fixture.Files {
	if !withProject {
		return func(context.Context) (map[string]string, error) {
			return map[string]string{"README.md": "The Project " + Team + " was removed from this repository.\n"}, nil
		}
	}
	return Project(v)
}

// Application syncs the repository holding the Project (cluster-scoped: no
// destination namespace); syncs are manual, each a step of the cell.
func Application() fixture.App {
	return fixture.Application(map[string]any{"name": Team})
}

// Release is the online Kargo chart release (OCI, the tag's chart version).
func Release(chart, version string) env.Release {
	return env.Release{Name: "kargo", Namespace: Namespace, Chart: chart, Version: version[1:]}
}

// OfflineRelease is the chart from the tree, into the namespace made
// beforehand (it holds the webhook certificate's Secret).
func OfflineRelease() env.Release {
	return env.Release{Name: "kargo", Namespace: Namespace, ExistingNamespace: true}
}

// WebhookTLS is the webhook server's certificate the suite makes instead of
// cert-manager.
func WebhookTLS() *fixture.ServingTLS {
	return fixture.NewServingTLS(webhookService, Namespace, webhookSecret)
}

// OfflineValues are the chart values that install Kargo from its tree with
// no cert-manager, Dex or ingress: the image built from the same tree (the
// chart's appVersion is a placeholder), the API and external webhooks server
// without TLS, the webhooks server with the suite's certificate (its caBundle
// from v1.7's chart on; env.InjectCABundle sets it on older ones), CRDs
// removed with the release.
func OfflineValues(tag string, tls *fixture.ServingTLS) func(ctx context.Context) (map[string]any, error) {
	return func(ctx context.Context) (map[string]any, error) {
		ca, err := tls.CABundle(ctx)
		if err != nil {
			return nil, err
		}
		admin, err := AdminValues(ctx)
		if err != nil {
			return nil, err
		}
		v := map[string]any{
			"image":                  map[string]any{"repository": "ghcr.io/akuity/kargo", "tag": tag, "pullPolicy": "IfNotPresent"},
			"crds":                   map[string]any{"keep": false},
			"api":                    map[string]any{"tls": map[string]any{"enabled": false}},
			"externalWebhooksServer": map[string]any{"tls": map[string]any{"enabled": false}},
			"webhooksServer":         map[string]any{"tls": map[string]any{"selfSignedCert": false, "caBundle": string(ca)}},
		}
		v["api"].(map[string]any)["adminAccount"] = admin["api"].(map[string]any)["adminAccount"]
		return v, nil
	}
}

// ApplicationValues are OfflineValues for an Application that installs
// Kargo at tag from its tree (make upgrade-check's seed, written by
// `conformance upgrade-check apps`): no step of a cell makes the webhook
// certificate's Secret in the namespace beforehand there, so it rides in the
// release, in the chart's extraObjects, and the chart sets the webhooks'
// caBundle itself. Both from v1.7's chart on; older charts have neither (the
// scenario injects the CA bundle after the install).
func ApplicationValues(ctx context.Context, tag string) (map[string]any, error) {
	if env.CompareTags(tag, "v1.7.0") < 0 {
		return nil, fmt.Errorf("kargo %s: its chart takes no caBundle or extraObjects (from v1.7.0 on): the webhook certificate cannot ride in an Application", tag)
	}
	tls := WebhookTLS()
	v, err := OfflineValues(tag, tls)(ctx)
	if err != nil {
		return nil, err
	}
	files, err := tls.Secret()(ctx)
	if err != nil {
		return nil, err
	}
	var extra []any
	for _, m := range files {
		var secret map[string]any
		if err := yaml.Unmarshal([]byte(m), &secret); err != nil {
			return nil, fmt.Errorf("the webhook certificate's Secret: %w", err)
		}
		extra = append(extra, secret)
	}
	v["extraObjects"] = extra
	return v, nil
}

// AdminValues generates the chart's required admin credentials for this run.
func AdminValues(ctx context.Context) (map[string]any, error) {
	password, key := make([]byte, 18), make([]byte, 32)
	if _, err := rand.Read(password); err != nil {
		return nil, err
	}
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(base64.RawURLEncoding.EncodeToString(password)), bcrypt.DefaultCost)
	if err != nil {
		return nil, err
	}
	signing := base64.RawURLEncoding.EncodeToString(key)
	fixture.Throwaway(ctx, string(hash), signing)
	return map[string]any{"api": map[string]any{"adminAccount": map[string]any{
		"passwordHash": string(hash), "tokenSigningKey": signing}}}, nil
}
