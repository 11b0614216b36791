package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/util/jsonpath"
)

// RequestTimeout bounds one read: a read the API server does not answer in
// time is an error (could not tell), never a hang that outlives its wait.
const RequestTimeout = 30 * time.Second

// Client reads the cluster through client-go: one process, no kubectl fork
// per look. Kinds are named as on kubectl's command line ("deploy",
// "namespace", "projects.kargo.akuity.io") and resolved through discovery;
// a kind the API server does not serve reads as ErrNoResourceType.
type Client struct {
	Dynamic dynamic.Interface
	Mapper  meta.RESTMapper
	// Raw sends GETs to paths of the API server; Core (the core API's REST
	// client) and Config open exec streams (all nil in tests).
	Raw    rest.Interface
	Core   rest.Interface
	Config *rest.Config

	mu    sync.Mutex
	reset func() // forget discovery, for a kind installed since (nil: static mapper)
}

// ErrNoResourceType is a kind the API server does not serve (a CRD not
// installed, or gone): what kubectl calls "doesn't have a resource type".
var ErrNoResourceType = errors.New("the server doesn't have a resource type")

// NewClient returns a Client for the cluster behind cfg.
func NewClient(cfg *rest.Config) (*Client, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout = RequestTimeout
	cfg.QPS, cfg.Burst = 50, 100
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	core, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("core client: %w", err)
	}
	cached := memory.NewMemCacheClient(disco)
	deferred := restmapper.NewDeferredDiscoveryRESTMapper(cached)
	return &Client{
		Dynamic: dyn,
		Mapper:  restmapper.NewShortcutExpander(deferred, cached, nil),
		Raw:     disco.RESTClient(),
		Core:    core.CoreV1().RESTClient(),
		Config:  cfg,
		reset:   deferred.Reset,
	}, nil
}

// Resource resolves a kind as kubectl's command line names it to the
// resource it reads and whether that resource is namespaced.
func (c *Client) Resource(kind string) (schema.GroupVersionResource, bool, error) {
	var gvr schema.GroupVersionResource
	var namespaced bool
	err := c.rediscovering(func() (err error) {
		gvr, namespaced, err = c.resolve(kind)
		return err
	})
	if meta.IsNoMatchError(err) {
		return gvr, false, fmt.Errorf("%w %q", ErrNoResourceType, kind)
	}
	return gvr, namespaced, err
}

// mapping is the REST mapping of a kind (a dry run's: a CloneSet right after
// kruise's install).
func (c *Client) mapping(gvk schema.GroupVersionKind) (*meta.RESTMapping, error) {
	var m *meta.RESTMapping
	err := c.rediscovering(func() (err error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		m, err = c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		return err
	})
	return m, err
}

// rediscovering runs look, and once more with discovery read again when it
// answers that a kind is unknown: a CRD installed since discovery was read.
func (c *Client) rediscovering(look func() error) error {
	err := look()
	if meta.IsNoMatchError(err) && c.reset != nil {
		c.mu.Lock()
		c.reset()
		c.mu.Unlock()
		err = look()
	}
	return err
}

func (c *Client) resolve(kind string) (schema.GroupVersionResource, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gr := schema.ParseGroupResource(strings.ToLower(kind))
	gvr, err := c.Mapper.ResourceFor(gr.WithVersion(""))
	if err != nil {
		return gvr, false, err
	}
	gvk, err := c.Mapper.KindFor(gvr)
	if err != nil {
		return gvr, false, err
	}
	mapping, err := c.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return gvr, false, err
	}
	return gvr, mapping.Scope.Name() == meta.RESTScopeNameNamespace, nil
}

func (c *Client) resource(kind, namespace string) (dynamic.ResourceInterface, error) {
	gvr, namespaced, err := c.Resource(kind)
	if err != nil {
		return nil, err
	}
	if namespaced {
		return c.Dynamic.Resource(gvr).Namespace(namespace), nil
	}
	return c.Dynamic.Resource(gvr), nil
}

// Get reads one object. Within a wait (WithWatch), the wait then watches it.
func (c *Client) Get(ctx context.Context, kind, namespace, name string) (*unstructured.Unstructured, error) {
	r, err := c.resource(kind, namespace)
	if err != nil {
		return nil, err
	}
	obj, err := r.Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		followGet(ctx, r, kind, namespace, name, obj.GetResourceVersion())
	case NotFound(err):
		followGet(ctx, r, kind, namespace, name, "")
	}
	return obj, err
}

// List reads the objects of kind in namespace ("" for all or cluster-scoped)
// matching the label selector ("" for all).
func (c *Client) List(ctx context.Context, kind, namespace, selector string) (*unstructured.UnstructuredList, error) {
	return c.list(ctx, kind, namespace, metav1.ListOptions{LabelSelector: selector})
}

// ListFields is List with a field selector.
func (c *Client) ListFields(ctx context.Context, kind, namespace, fields string) (*unstructured.UnstructuredList, error) {
	return c.list(ctx, kind, namespace, metav1.ListOptions{FieldSelector: fields})
}

// list lists; within a wait (WithWatch), the wait then watches what it listed.
func (c *Client) list(ctx context.Context, kind, namespace string, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	r, err := c.resource(kind, namespace)
	if err != nil {
		return nil, err
	}
	list, err := r.List(ctx, opts)
	if err == nil {
		followList(ctx, r, kind, namespace, opts, list.GetResourceVersion())
	}
	return list, err
}

// DryRunCreate asks the API server to create every object of a multi-document
// manifest without persisting anything (server-side dry run: admission
// webhooks and validation run). The first refusal is returned.
func (c *Client) DryRunCreate(ctx context.Context, manifest string) error {
	Blind(ctx)
	objs, err := Decode(manifest)
	if err != nil {
		return err
	}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		mapping, err := c.mapping(gvk)
		if err != nil {
			return fmt.Errorf("%s: %w", gvk.Kind, err)
		}
		var r dynamic.ResourceInterface = c.Dynamic.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			ns := o.GetNamespace()
			if ns == "" {
				ns = "default"
			}
			r = c.Dynamic.Resource(mapping.Resource).Namespace(ns)
		}
		if _, err := r.Create(ctx, o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
			return err
		}
	}
	return nil
}

// GetRaw GETs a path of the API server (e.g. a service proxy path).
func (c *Client) GetRaw(ctx context.Context, path string) ([]byte, error) {
	Blind(ctx)
	if c.Raw == nil {
		return nil, errors.New("no REST client")
	}
	return c.Raw.Get().AbsPath(path).DoRaw(ctx)
}

// Request sends a request to a path of the API server (e.g. a service
// proxy path, with a query after "?") with the body and headers given, and
// returns the response body.
func (c *Client) Request(ctx context.Context, method, path string, body []byte, header map[string]string) ([]byte, error) {
	Blind(ctx)
	if c.Raw == nil {
		return nil, errors.New("no REST client")
	}
	path, query, _ := strings.Cut(path, "?")
	r := c.Raw.Verb(method).AbsPath(path)
	if query != "" {
		values, err := url.ParseQuery(query)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, path, err)
		}
		for k, vs := range values {
			for _, v := range vs {
				r = r.Param(k, v)
			}
		}
	}
	if body != nil {
		r = r.Body(body)
	}
	for k, v := range header {
		r = r.SetHeader(k, v)
	}
	return r.DoRaw(ctx)
}

// Decode splits a multi-document YAML or JSON manifest into objects, skipping
// empty documents.
func Decode(manifest string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return objs, nil
			}
			return nil, fmt.Errorf("decode manifest: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		objs = append(objs, &unstructured.Unstructured{Object: m})
	}
}

// JSONPath evaluates a kubectl jsonpath template ("{.status.phase}") over an
// object as `kubectl get -o jsonpath=` prints it: a missing key prints
// nothing, a list or map prints as JSON.
func JSONPath(obj map[string]any, template string) (string, error) {
	j := jsonpath.New("out").AllowMissingKeys(true)
	if err := j.Parse(template); err != nil {
		return "", fmt.Errorf("jsonpath %q: %w", template, err)
	}
	var b bytes.Buffer
	if err := j.Execute(&b, obj); err != nil {
		return "", fmt.Errorf("jsonpath %q: %w", template, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// NotFound reports whether a failed read says the object is not there: the
// API server answered NotFound, or serves no such resource type. Any other
// failure is a read that could not tell. It knows client-go's errors and
// kubectl's messages (for the steps that still run kubectl).
func NotFound(err error) bool {
	if err == nil {
		return false
	}
	if apierrors.IsNotFound(err) || errors.Is(err, ErrNoResourceType) || meta.IsNoMatchError(err) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "(NotFound)") || strings.Contains(msg, "doesn't have a resource type")
}

// Answered reports whether a failed call carries the API server's answer (a
// rejection: an admission webhook's denial or its failure under
// failurePolicy Fail, a validation error), as opposed to a call that never got
// one (no connection, a timeout, the server or etcd unavailable).
func Answered(err error) bool {
	if err == nil {
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		switch {
		case apierrors.IsTimeout(err), apierrors.IsServerTimeout(err), apierrors.IsServiceUnavailable(err),
			apierrors.IsTooManyRequests(err), apierrors.IsUnexpectedServerError(err):
			return false
		}
		return !unanswered(status.Status().Message)
	}
	msg := err.Error()
	return strings.Contains(msg, "Error from server") && !unanswered(msg) &&
		!strings.Contains(msg, "(Timeout)") && !strings.Contains(msg, "(ServiceUnavailable)") && !strings.Contains(msg, "(TooManyRequests)")
}

func unanswered(msg string) bool {
	return strings.Contains(msg, "etcdserver:") || strings.Contains(msg, "context deadline exceeded")
}

// Exec runs a command in the first running Pod of a Deployment (what
// `kubectl exec deploy/name` picks), with stdin, and returns its output
// (stdout, then stderr). A command that ran and failed returns its output and
// an error.
func (c *Client) Exec(ctx context.Context, namespace, deployment string, stdin io.Reader, command ...string) (string, error) {
	Blind(ctx)
	if c.Config == nil || c.Core == nil {
		return "", errors.New("no REST config")
	}
	pod, err := c.runningPod(ctx, namespace, deployment)
	if err != nil {
		return "", err
	}
	req := c.Core.Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Command: command, Stdin: stdin != nil, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	exec, err := remotecommand.NewSPDYExecutor(c.Config, "POST", req.URL())
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	err = exec.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: &stdout, Stderr: &stderr})
	out := stdout.String() + stderr.String()
	if err != nil {
		return out, fmt.Errorf("exec in %s/%s: %w: %s", namespace, pod, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func (c *Client) runningPod(ctx context.Context, namespace, deployment string) (string, error) {
	d, err := c.Get(ctx, "deployments.apps", namespace, deployment)
	if err != nil {
		return "", err
	}
	labels, _, _ := unstructured.NestedStringMap(d.Object, "spec", "selector", "matchLabels")
	selector := make([]string, 0, len(labels))
	for k, v := range labels {
		selector = append(selector, k+"="+v)
	}
	pods, err := c.List(ctx, "pods", namespace, strings.Join(selector, ","))
	if err != nil {
		return "", err
	}
	for _, p := range pods.Items {
		if phase, _, _ := unstructured.NestedString(p.Object, "status", "phase"); phase == "Running" && p.GetDeletionTimestamp() == nil {
			return p.GetName(), nil
		}
	}
	return "", fmt.Errorf("deployment %s/%s has no running pod", namespace, deployment)
}
