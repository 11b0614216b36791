package env

import (
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/helm"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
)

// A scenario refers to an object by constructing its ref, never by spelling
// its kind: each constructor knows the kind as kubectl takes it (what the
// verbs, the checks and repro.sh pass to kubectl, and what the logs and step
// names show) and as the API names it (what an event's involvedObject says).
// A ref without a name (Job(ns, "")) is every object of its kind in the
// namespace: what check.EventSeen reads the events of.

// Namespace is the Namespace name.
func Namespace(name string) Object { return lifecycle.Namespace(name) }

// ConfigMap is the ConfigMap namespace/name.
func ConfigMap(namespace, name string) Object { return lifecycle.ConfigMap(namespace, name) }

// Secret is the Secret namespace/name.
func Secret(namespace, name string) Object { return lifecycle.Secret(namespace, name) }

// Service is the Service namespace/name.
func Service(namespace, name string) Object { return lifecycle.Service(namespace, name) }

// ServiceAccount is the ServiceAccount namespace/name.
func ServiceAccount(namespace, name string) Object {
	return ref("serviceaccount", "ServiceAccount", namespace, name)
}

// Pod is the Pod namespace/name.
func Pod(namespace, name string) Object { return ref("pod", "Pod", namespace, name) }

// Deployment is the Deployment namespace/name.
func Deployment(namespace, name string) Object {
	return ref("deployment", "Deployment", namespace, name)
}

// ReplicaSet is the ReplicaSet namespace/name.
func ReplicaSet(namespace, name string) Object {
	return ref("replicaset", "ReplicaSet", namespace, name)
}

// StatefulSet is the StatefulSet namespace/name.
func StatefulSet(namespace, name string) Object {
	return ref("statefulset", "StatefulSet", namespace, name)
}

// Job is the Job namespace/name.
func Job(namespace, name string) Object { return ref("job", "Job", namespace, name) }

// CRD is the CustomResourceDefinition name (plural.group).
func CRD(name string) Object {
	return ref("customresourcedefinition", "CustomResourceDefinition", "", name)
}

// ValidatingWebhooks is the ValidatingWebhookConfiguration name.
func ValidatingWebhooks(name string) Object {
	return ref("validatingwebhookconfiguration", "ValidatingWebhookConfiguration", "", name)
}

// MutatingWebhooks is the MutatingWebhookConfiguration name.
func MutatingWebhooks(name string) Object {
	return ref("mutatingwebhookconfiguration", "MutatingWebhookConfiguration", "", name)
}

// Application is the ArgoCD Application name (in ArgoCD's namespace).
func Application(name string) Object { return lifecycle.Application(name) }

// Custom is an object of a custom resource: resource as kubectl takes it
// (plural.group, e.g. clonesets.apps.kruise.io) and kind as the API names
// it (CloneSet); namespace "" for a cluster-scoped one.
func Custom(resource, kind, namespace, name string) Object {
	return ref(resource, kind, namespace, name)
}

func ref(resource, kind, namespace, name string) Object {
	return Object{Kind: resource, APIKind: kind, Namespace: namespace, Name: name}
}

// ArgoCDNamespace is the namespace ArgoCD runs in, and its Applications live in.
const ArgoCDNamespace = argocd.Namespace

// PreDeleteFinalizer is ArgoCD's finalizer on an Application whose
// PreDelete hooks have not run yet (3.3 on).
const PreDeleteFinalizer = argocd.PreDeleteFinalizer

// Deletion is how DeleteApp deletes an Application (Foreground, Background,
// NonCascade).
type Deletion = argocd.Deletion

// Release is a Helm release as HelmInstall and HelmInstallChart take it.
type Release = helm.Release

// Catalog is the suite's catalog of versions, images and sources
// (catalog.yaml), as a scenario reads an input of its own from it.
type Catalog = catalog.Catalog

// LoadCatalog reads the catalog.
func LoadCatalog() (*Catalog, error) { return catalog.Load() }

// CompareTags orders release tags by version number (v2.14.3 before v2.14.21).
func CompareTags(a, b string) int { return catalog.CompareTags(a, b) }
