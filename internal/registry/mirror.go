package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Upstreams are the registry hosts the nodes pull through a mirror
// (public.ecr.aws: ArgoCD 3.x's redis).
var Upstreams = []string{"docker.io", "quay.io", "ghcr.io", "gcr.io", "registry.k8s.io", "reg.kyverno.io", "public.ecr.aws"}

// Mirror is a registry the nodes pull the upstream names through.
type Mirror struct {
	Scheme string // http or https
	Host   string // host:port
}

// ParseMirror reads REGISTRY_MIRROR: host:port (plain HTTP, as a local or
// in-house registry commonly serves), or http://host:port, https://host:port.
func ParseMirror(s string) (Mirror, error) {
	bad := func(why string) (Mirror, error) {
		return Mirror{}, fmt.Errorf("registry mirror %q: %s (want host:port, http://host:port or https://host:port)", s, why)
	}
	m := Mirror{Scheme: "http", Host: strings.TrimSpace(s)}
	if scheme, rest, ok := strings.Cut(m.Host, "://"); ok {
		if scheme != "http" && scheme != "https" {
			return bad("scheme " + scheme + " is not http or https")
		}
		m.Scheme, m.Host = scheme, strings.TrimSuffix(rest, "/")
	}
	if m.Host == "" {
		return bad("empty")
	}
	if strings.ContainsAny(m.Host, "/?#@ ") {
		return bad("a mirror is a host and port, without a path")
	}
	host, port, err := net.SplitHostPort(m.Host)
	if err != nil {
		return bad("no port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return bad("port " + port + " is not a number from 1 to 65535")
	}
	if host == "" {
		return bad("no host")
	}
	return m, nil
}

// URL is the mirror's base URL.
func (m Mirror) URL() string { return m.Scheme + "://" + m.Host }

func (m Mirror) String() string {
	if m.Scheme == "http" {
		return m.Host
	}
	return m.URL()
}

// upstreamServer is the server a hosts.toml names for an upstream host.
func upstreamServer(upstream string) string {
	if upstream == "docker.io" {
		return "https://registry-1.docker.io"
	}
	return "https://" + upstream
}

// HostsTOML is containerd's hosts.toml for one upstream
// (/etc/containerd/certs.d/<upstream>/hosts.toml, read per pull when the CRI
// plugin's config_path names /etc/containerd/certs.d): pull and resolve
// through the mirror; the upstream itself is only tried when the mirror fails.
func (m Mirror) HostsTOML(upstream string) string {
	return fmt.Sprintf(`# gitops-conformance: pull %s through the mirror %s
server = %q

[host.%q]
  capabilities = ["pull", "resolve"]
`, upstream, m.Host, upstreamServer(upstream), m.URL())
}

// ContainerdPatch is the kind containerdConfigPatches entry that makes
// containerd read hosts.toml files (as kind documents for a local registry),
// with debug logging so that each pull's resolved host is in the node's log.
const ContainerdPatch = `[plugins."io.containerd.grpc.v1.cri".registry]
  config_path = "/etc/containerd/certs.d"
[debug]
  level = "debug"`

// Probe asks the mirror's API root, GET /v2/, which a registry answers with
// 200 or 401 (credentials wanted). Any other answer is not a registry's: a
// proxy or interceptor in between answers unreachable hosts with 404 or 502.
func (m Mirror) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.URL()+"/v2/", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if uerr := (*url.Error)(nil); errors.As(err, &uerr) {
			err = uerr.Err
		}
		return fmt.Errorf("registry mirror %s unreachable: %w", m, err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("registry mirror %s unreachable: GET %s/v2/ answered %s, not a registry's 200 or 401", m, m.URL(), resp.Status)
	}
	return nil
}

// manifestTypes are the manifest media types a pull accepts.
var manifestTypes = strings.Join([]string{
	"application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json",
	"application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json",
}, ", ")

// Has reports whether the mirror holds an image (by its upstream name), as a
// pull would ask: HEAD /v2/<path>/manifests/<tag or digest>?ns=<upstream>.
func (m Mirror) Has(ctx context.Context, image string) (bool, error) {
	ref, err := ParseRef(image)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	u := fmt.Sprintf("%s/v2/%s/manifests/%s?ns=%s", m.URL(), ref.Path, ref.Reference(), ref.Host)
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, u, nil)
	if err != nil {
		return false, err
	}
	req.Header.Set("Accept", manifestTypes)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, fmt.Errorf("ask mirror %s for %s: %w", m, image, err)
	}
	_ = resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return true, nil
	case http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("ask mirror %s for %s: HEAD %s: %s", m, image, u, resp.Status)
}
