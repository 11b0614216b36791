package registry

import (
	"fmt"
	"strings"
)

// Ref is an image reference split the way a registry serves it.
type Ref struct {
	Host   string // upstream registry host: docker.io for names without one
	Path   string // repository path: library/redis for redis
	Tag    string
	Digest string // sha256:..., when the reference pins one
}

// ParseRef splits an image name (redis:7.0.15-alpine,
// quay.io/argoproj/argocd:v2.14.11, gcr.io/x/y@sha256:...) as Docker does:
// a first component with a dot, a colon or "localhost" is a registry host;
// otherwise the host is docker.io, and a one-component path is library/<name>.
func ParseRef(image string) (Ref, error) {
	var r Ref
	name := image
	if n, d, ok := strings.Cut(name, "@"); ok {
		name, r.Digest = n, d
	}
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name, r.Tag = name[:i], name[i+1:]
	}
	if r.Tag == "" && r.Digest == "" {
		r.Tag = "latest"
	}
	r.Host, r.Path = "docker.io", name
	if first, rest, ok := strings.Cut(name, "/"); ok && (strings.ContainsAny(first, ".:") || first == "localhost") {
		r.Host, r.Path = first, rest
	}
	if r.Host == "index.docker.io" {
		r.Host = "docker.io"
	}
	if r.Host == "docker.io" && !strings.Contains(r.Path, "/") {
		r.Path = "library/" + r.Path
	}
	if r.Path == "" || strings.HasPrefix(r.Path, "/") || strings.HasSuffix(r.Path, "/") || strings.ContainsAny(r.Path, " \t") {
		return Ref{}, fmt.Errorf("image %q: not an image reference", image)
	}
	return r, nil
}

// Reference is what follows /manifests/ in a pull: the digest if pinned, else the tag.
func (r Ref) Reference() string {
	if r.Digest != "" {
		return r.Digest
	}
	return r.Tag
}

// MirrorName is the image's name at a mirror (host:port/path:tag): where a
// push puts it so that a pull of the upstream name through the mirror finds it.
func (r Ref) MirrorName(mirrorHost string) string {
	return mirrorHost + "/" + r.Path + ":" + r.Tag
}
