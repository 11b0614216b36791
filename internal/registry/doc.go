// Package registry is where the nodes pull images from rather than have them
// loaded: the registry mirror a user names (REGISTRY_MIRROR: parse, probe,
// hosts.toml) and the suite's own local registry.
//
// The mirror (REGISTRY_MIRROR=host:port, the way air-gapped installations
// run) is what containerd on the kind nodes pulls the upstream names through
// (docker.io, quay.io, ghcr.io, gcr.io, registry.k8s.io, reg.kyverno.io,
// public.ecr.aws). The suite's own registry is a real one
// (distribution/distribution, built by images/registry), started and removed
// by the suite, its data under the cache directory.
//
// A mirror holds each image under its upstream path without the host
// (quay.io/argoproj/argocd:v2.14.11 as argoproj/argocd:v2.14.11, redis:7 as
// library/redis:7), as containerd asks for it: a single flat namespace, so two
// upstreams with the same path would collide (none of the suite's do).
package registry
