// Package cluster owns kind clusters: create (or reuse one whose node image
// matches), export logs, destroy. Creation goes through e2e-framework's kind
// support with the repository's kind-config.yaml.
package cluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/e2e-framework/support/kind"

	"github.com/gitops-conformance/suite/pkg/shell"
)

// Spec is the cluster a run wants.
type Spec struct {
	Name   string // kind cluster name
	Image  string // node image
	Config string // kind config file
	Kind   string // path of the kind binary
}

// Cluster is a running cluster.
type Cluster struct {
	Spec
	Kubeconfig string
	Reused     bool
	provider   *kind.Cluster
}

// KindBinary builds the pinned kind CLI into dir once and returns its path.
func KindBinary(ctx context.Context, dir, version string) (string, error) {
	path := filepath.Join(dir, "kind-"+version)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	tmp := filepath.Join(dir, "tmp-kind")
	_, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"install", "sigs.k8s.io/kind@" + version},
		Env: []string{"GOBIN=" + tmp, "CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOSUMDB=off", "GOTOOLCHAIN=local"}})
	if err != nil {
		return "", fmt.Errorf("build kind %s: %w", version, err)
	}
	if err := os.Rename(filepath.Join(tmp, "kind"), path); err != nil {
		return "", fmt.Errorf("build kind %s: %w", version, err)
	}
	return path, os.RemoveAll(tmp)
}

// NodeContainer is the control-plane container of a kind cluster.
func NodeContainer(name string) string { return name + "-control-plane" }

// Fingerprint is the image ID a cluster's node runs, "" when there is no node.
func Fingerprint(ctx context.Context, name string) string {
	out, err := shell.Output(ctx, "docker", "inspect", "--format", "{{.Image}} {{.State.Running}}", NodeContainer(name))
	if err != nil {
		return ""
	}
	id, running, _ := strings.Cut(strings.TrimSpace(out), " ")
	if running != "true" {
		return "stopped"
	}
	return id
}

func imageID(ctx context.Context, image string) (string, error) {
	out, err := shell.Output(ctx, "docker", "image", "inspect", "--format", "{{.Id}}", image)
	if err != nil {
		return "", fmt.Errorf("inspect node image %q: %w", image, err)
	}
	return strings.TrimSpace(out), nil
}

// Ensure returns a running cluster for spec: a running one whose node image
// matches is reused; any other cluster of that name is deleted first. When
// creation fails or ctx is cancelled, the half-made cluster is deleted.
func Ensure(ctx context.Context, spec Spec, out io.Writer) (*Cluster, error) {
	want, err := imageID(ctx, spec.Image)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Spec: spec, provider: kind.NewCluster(spec.Name)}
	c.provider.WithOpts(kind.WithImage(spec.Image), kind.WithPath(spec.Kind))
	switch have := Fingerprint(ctx, spec.Name); {
	case have == want:
		c.Reused = true
		fmt.Fprintf(out, "cluster %s: reusing (node image %s)\n", spec.Name, spec.Image)
	case have != "":
		fmt.Fprintf(out, "cluster %s: node image differs (%s), recreating\n", spec.Name, short(have))
		if err := Delete(ctx, spec); err != nil {
			return nil, err
		}
	}
	if !c.Reused {
		fmt.Fprintf(out, "cluster %s: creating from %s\n", spec.Name, spec.Image)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		kc, err := c.provider.CreateWithConfig(ctx, spec.Config)
		c.Kubeconfig = kc
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		if !c.Reused {
			_ = Delete(context.WithoutCancel(ctx), spec)
		}
		return nil, fmt.Errorf("create cluster %q: %w", spec.Name, err)
	}
	if !c.Reused {
		fmt.Fprintf(out, "cluster %s: created in %s\n", spec.Name, time.Since(start).Round(time.Second))
	}
	return c, nil
}

// Delete removes a cluster by name; a cluster that does not exist is no error.
func Delete(ctx context.Context, spec Spec) error {
	if _, err := shell.Output(ctx, spec.Kind, "delete", "cluster", "--name", spec.Name); err != nil {
		return fmt.Errorf("delete cluster %q: %w", spec.Name, err)
	}
	return nil
}

// ExportLogs writes kind's node logs under dir.
func (c *Cluster) ExportLogs(ctx context.Context, dir string) error {
	return c.provider.ExportLogs(ctx, dir)
}

func short(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// LoadImage loads a local image into the cluster's node.
func (c *Cluster) LoadImage(ctx context.Context, image string) error {
	return c.provider.LoadImage(ctx, image)
}
