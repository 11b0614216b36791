package kargo

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/helm"
)

// Team is the namespace and Project name.
const Team = "kargo-team-a"

const keepAnnotation = "kargo.akuity.io/keep-namespace"

// Finalizer is what Kargo puts on a namespace its Project adopted (every release).
const Finalizer = "kargo.akuity.io/finalizer"

// Sources are where the online path installs from: the catalog's kargo and
// cert-manager entries.
type Sources struct {
	Chart          string // Kargo's chart (OCI)
	CertManagerURL string // cert-manager's release manifest
}

// SourcesOf reads the sources from the catalog.
func SourcesOf(cat *catalog.Catalog) (Sources, error) {
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

// Variant says where the annotation goes and how the Project is deleted.
type Variant struct {
	OnProject, OnNamespace bool
	DeleteArgs             []string
}

// VariantOf maps a variant name to what it does.
func VariantOf(name string) Variant {
	switch name {
	case "keep-namespace":
		return Variant{OnProject: true}
	case "keep-namespace-argocd-prune":
		return Variant{OnProject: true, DeleteArgs: []string{"--cascade=foreground"}}
	case "keep-namespace-on-namespace":
		return Variant{OnNamespace: true}
	}
	return Variant{}
}

func annotations(keep bool) string {
	if !keep {
		return ""
	}
	return fmt.Sprintf("\n  annotations: {%s: \"true\"}", keepAnnotation)
}

// TeamNamespace is the pre-created namespace with what a team cares about.
func TeamNamespace(keep bool) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %[1]s
  labels: {kargo.akuity.io/project: "true"}%[2]s
---
apiVersion: v1
kind: ConfigMap
metadata: {name: team-settings, namespace: %[1]s}
data: {owner: team-a}
---
apiVersion: v1
kind: Secret
metadata: {name: team-credentials, namespace: %[1]s}
stringData: {token: not-a-real-credential}
`, Team, annotations(keep))
}

// Project is the Kargo Project adopting the namespace.
func Project(keep bool) string {
	return fmt.Sprintf("apiVersion: kargo.akuity.io/v1alpha1\nkind: Project\nmetadata:\n  name: %s%s\n", Team, annotations(keep))
}

// Release is the Kargo chart release.
func Release(chart, version string) helm.Release {
	return helm.Release{Name: "kargo", Namespace: "kargo", Chart: chart, Version: version[1:]}
}

// AdminValues generates the chart's required admin credentials for this run.
func AdminValues(context.Context) (map[string]any, error) {
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
	return map[string]any{"api": map[string]any{"adminAccount": map[string]any{
		"passwordHash": string(hash), "tokenSigningKey": base64.RawURLEncoding.EncodeToString(key)}}}, nil
}
