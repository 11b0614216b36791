package argocd

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/gitops-conformance/suite/internal/kube"
)

// API is ArgoCD's own API server, reached through the Kubernetes API
// server's service proxy and logged in as admin with the initial password:
// what only it answers, such as the manifests its repo server renders.
type API struct {
	Kube *kube.Client
}

// proxy is the service proxy path of the API server's path p, over TLS.
func proxy(p string) string {
	return "/api/v1/namespaces/" + Namespace + "/services/https:argocd-server:443/proxy" + p
}

// plainProxy is proxy over plain HTTP: an API server run with
// server.insecure (argocd-cmd-params-cm, as teams behind an ingress do)
// answers no TLS, and the service proxy says only that it is "unable to
// handle the request".
func plainProxy(p string) string {
	return "/api/v1/namespaces/" + Namespace + "/services/http:argocd-server:80/proxy" + p
}

// serverRequest sends a request to ArgoCD's API server: over TLS, and when
// that fails over plain HTTP, whose answer counts only when it succeeds (a
// server with TLS redirects it back). The TLS attempt's answer and error
// stand otherwise: ArgoCD's own error, or the proxy's.
func serverRequest(ctx context.Context, k *kube.Client, method, p string, body []byte, headers map[string]string) ([]byte, error) {
	out, err := k.Request(ctx, method, proxy(p), body, headers)
	if err == nil {
		return out, nil
	}
	if plain, perr := k.Request(ctx, method, plainProxy(p), body, headers); perr == nil {
		return plain, nil
	}
	return out, err
}

// InitialAdminSecret holds the admin password an install generates.
const InitialAdminSecret = "argocd-initial-admin-secret"

// login returns a session token of the admin user. The Kubernetes API
// server takes the Authorization header for itself: the token goes to
// ArgoCD as its cookie.
func (a API) login(ctx context.Context) (string, error) {
	s, err := a.Kube.Get(ctx, "secret", Namespace, InitialAdminSecret)
	if err != nil {
		return "", fmt.Errorf("argocd admin password (secret %s/%s): %w", Namespace, InitialAdminSecret, err)
	}
	enc, _, _ := unstructured.NestedString(s.Object, "data", "password")
	password, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(password) == 0 {
		return "", fmt.Errorf("argocd admin password (secret %s/%s): no data.password", Namespace, InitialAdminSecret)
	}
	body, _ := json.Marshal(map[string]string{"username": "admin", "password": string(password)})
	out, err := serverRequest(ctx, a.Kube, "POST", "/api/v1/session", body, map[string]string{"Content-Type": "application/json"})
	if err != nil {
		return "", fmt.Errorf("argocd login: %w", err)
	}
	var session struct{ Token string }
	if err := json.Unmarshal(out, &session); err != nil || session.Token == "" {
		return "", fmt.Errorf("argocd login: no token in %.200q", out)
	}
	return session.Token, nil
}

// get GETs an API path as admin into v.
func (a API) get(ctx context.Context, p string, v any) error {
	token, err := a.login(ctx)
	if err != nil {
		return err
	}
	out, err := serverRequest(ctx, a.Kube, "GET", p, nil, map[string]string{"Cookie": "argocd.token=" + token})
	if err != nil {
		if len(out) > 0 { // ArgoCD's own error, which the proxy's status hides
			return fmt.Errorf("argocd API %s: %w: %.300s", p, err, out)
		}
		return fmt.Errorf("argocd API %s: %w", p, err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("argocd API %s: %w", p, err)
	}
	return nil
}

// Render is what ArgoCD's repo server renders for an Application: its
// objects (hooks included), at which revision, from which kind of source.
type Render struct {
	Objects    []*unstructured.Unstructured
	Revision   string
	SourceType string
}

// Manifests asks the API server for the manifests its repo server renders
// for the Application (argocd app manifests --source git): at its target
// revision, as the running release renders them now. noCache: an entry an
// earlier release put into the Redis cache, which an in-place upgrade
// keeps, would answer for it otherwise (releases before 3.0 know no
// noCache and ignore it: their answer may come from that cache).
func (a API) Manifests(ctx context.Context, app string) (*Render, error) {
	var resp struct {
		Manifests  []string `json:"manifests"`
		Revision   string   `json:"revision"`
		SourceType string   `json:"sourceType"`
	}
	if err := a.get(ctx, "/api/v1/applications/"+url.PathEscape(app)+"/manifests?noCache=true", &resp); err != nil {
		return nil, err
	}
	r := &Render{Revision: resp.Revision, SourceType: resp.SourceType}
	for _, m := range resp.Manifests {
		var obj map[string]any
		if err := json.Unmarshal([]byte(m), &obj); err != nil {
			return nil, fmt.Errorf("argocd app manifests %s: %w", app, err)
		}
		r.Objects = append(r.Objects, &unstructured.Unstructured{Object: obj})
	}
	return r, nil
}

// Resource is one resource of an Application as ArgoCD's API server
// shows it: its health (kept out of the Application's status from 3.0),
// and for a managed one its target and live states as ArgoCD diffs them.
type Resource struct {
	Group, Kind, Namespace, Name string
	Health, HealthMessage        string
	// Target and Live are the desired and the normalized live state (JSON
	// objects; nil where there is none).
	Target, Live map[string]any
}

// Ref names the resource: group/kind namespace/name (the group left out
// for the core API).
func (r Resource) Ref() string {
	kind, name := r.Kind, r.Name
	if r.Group != "" {
		kind = r.Group + "/" + kind
	}
	if r.Namespace != "" {
		name = r.Namespace + "/" + name
	}
	return kind + " " + name
}

// Resources are the Application's resources: their health from its
// resource tree, their states from its managed resources.
func (a API) Resources(ctx context.Context, app string) ([]Resource, error) {
	type ref struct {
		Group     string `json:"group"`
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	}
	var tree struct {
		Nodes []struct {
			ref
			Health *struct{ Status, Message string } `json:"health"`
		} `json:"nodes"`
	}
	base := "/api/v1/applications/" + url.PathEscape(app)
	if err := a.get(ctx, base+"/resource-tree", &tree); err != nil {
		return nil, err
	}
	var managed struct {
		Items []struct {
			ref
			TargetState         string `json:"targetState"`
			NormalizedLiveState string `json:"normalizedLiveState"`
		} `json:"items"`
	}
	if err := a.get(ctx, base+"/managed-resources", &managed); err != nil {
		return nil, err
	}
	byRef := map[ref]*Resource{}
	var out []*Resource
	at := func(k ref) *Resource {
		if r, ok := byRef[k]; ok {
			return r
		}
		r := &Resource{Group: k.Group, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}
		byRef[k] = r
		out = append(out, r)
		return r
	}
	for _, n := range managed.Items {
		r := at(n.ref)
		r.Target, r.Live = object(n.TargetState), object(n.NormalizedLiveState)
	}
	for _, n := range tree.Nodes {
		if _, managed := byRef[n.ref]; managed && n.Health != nil {
			r := at(n.ref)
			r.Health, r.HealthMessage = n.Health.Status, n.Health.Message
		}
	}
	res := make([]Resource, len(out))
	for i, r := range out {
		res[i] = *r
	}
	return res, nil
}

// object is a JSON object, nil for "", "null" or anything else.
func object(s string) map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(s), &m) != nil {
		return nil
	}
	return m
}
