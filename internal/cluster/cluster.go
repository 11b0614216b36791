package cluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/shell"
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
}

// KindBinary builds the pinned kind CLI into dir once and returns its path.
// Clusters set up side by side on a new machine each build it into a
// directory of their own and rename it into place (run 20261127-123742: two
// of three shards failed when they shared one): the rename is atomic, the
// last one replaces an identical binary.
func KindBinary(ctx context.Context, dir, version string) (string, error) {
	path := filepath.Join(dir, "kind-"+version)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("build kind %s: %w", version, err)
	}
	tmp, err := os.MkdirTemp(dir, "tmp-kind-")
	if err != nil {
		return "", fmt.Errorf("build kind %s: %w", version, err)
	}
	defer os.RemoveAll(tmp)
	if _, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"install", "sigs.k8s.io/kind@" + version},
		Env: append([]string{"GOBIN=" + tmp, "CGO_ENABLED=0", "GOFLAGS=-mod=mod"}, shell.GoEnv("local")...)}); err != nil {
		return "", fmt.Errorf("build kind %s: %w", version, err)
	}
	if err := os.Rename(filepath.Join(tmp, "kind"), path); err != nil {
		return "", fmt.Errorf("build kind %s: %w", version, err)
	}
	return path, nil
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

// configStamp is the file, in the node, holding the hash of the kind config
// the cluster was made with.
const configStamp = "/kind/gitops-conformance-config.sha256"

func configHash(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read kind config: %w", err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// Ensure returns a running cluster for spec: a running one whose node image
// and kind config match is reused; any other cluster of that name is deleted first. When
// creation fails or ctx is cancelled, the half-made cluster is deleted.
// kind runs as a child process in its own process group, so a cancelled
// creation ends with it.
func Ensure(ctx context.Context, spec Spec, out io.Writer) (*Cluster, error) {
	want, err := imageID(ctx, spec.Image)
	if err != nil {
		return nil, err
	}
	hash, err := configHash(spec.Config)
	if err != nil {
		return nil, err
	}
	c := &Cluster{Spec: spec, Kubeconfig: kubeconfig(spec.Name)}
	have := Fingerprint(ctx, spec.Name)
	sameConfig := true
	if have == want {
		stamp, _ := shell.Output(ctx, "docker", "exec", NodeContainer(spec.Name), "cat", configStamp)
		sameConfig = strings.TrimSpace(stamp) == hash
	}
	switch {
	case have == want && !sameConfig:
		fmt.Fprintf(out, "cluster %s: made with another kind config than %s, recreating\n", spec.Name, spec.Config)
		if err := Delete(ctx, spec); err != nil {
			return nil, err
		}
	case have == want:
		c.Reused = true
		fmt.Fprintf(out, "cluster %s: reusing (node image %s)\n", spec.Name, spec.Image)
		kc, err := shell.Output(ctx, spec.Kind, "get", "kubeconfig", "--name", spec.Name)
		if err != nil {
			return nil, fmt.Errorf("read kubeconfig of cluster %q: %w", spec.Name, err)
		}
		return c, os.WriteFile(c.Kubeconfig, []byte(kc), 0o600)
	case have != "":
		fmt.Fprintf(out, "cluster %s: node image differs (%s), recreating\n", spec.Name, short(have))
		if err := Delete(ctx, spec); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(out, "cluster %s: creating from %s\n", spec.Name, spec.Image)
	start := time.Now()
	_, err = shell.Run(ctx, shell.Cmd{Name: spec.Kind, Args: []string{"create", "cluster", "--name", spec.Name,
		"--image", spec.Image, "--config", spec.Config, "--kubeconfig", c.Kubeconfig}})
	if err != nil {
		if derr := Delete(context.WithoutCancel(ctx), spec); derr != nil {
			err = fmt.Errorf("%w; and deleting what was made: %v", err, derr)
		}
		return nil, fmt.Errorf("create cluster %q: %w", spec.Name, err)
	}
	if _, err := shell.Output(ctx, "docker", "exec", NodeContainer(spec.Name), "sh", "-c", "echo "+hash+" > "+configStamp); err != nil {
		return nil, fmt.Errorf("create cluster %q: record its kind config: %w", spec.Name, err)
	}
	fmt.Fprintf(out, "cluster %s: created in %s\n", spec.Name, time.Since(start).Round(time.Second))
	return c, nil
}

// deleteRetries are the pauses before Delete tries kind delete again: on a
// loaded machine Docker may fail to remove a node container once ("tried to
// kill container, but did not receive an exit event", load ~35, 2026-11-29)
// and succeed a moment later. kind delete of a cluster gone is no error, so
// a retry is safe.
var deleteRetries = []time.Duration{5 * time.Second, 20 * time.Second}

// Delete removes a cluster by name; a cluster that does not exist is no error.
// A failed kind delete is tried again after deleteRetries' pauses; the error
// is the last attempt's.
func Delete(ctx context.Context, spec Spec) error {
	_, err := shell.Output(ctx, spec.Kind, "delete", "cluster", "--name", spec.Name)
	for i := 0; err != nil && i < len(deleteRetries) && ctx.Err() == nil; i++ {
		select {
		case <-ctx.Done():
		case <-time.After(deleteRetries[i]):
			_, err = shell.Output(ctx, spec.Kind, "delete", "cluster", "--name", spec.Name)
		}
	}
	if err != nil {
		return fmt.Errorf("delete cluster %q: %w", spec.Name, err)
	}
	if err := os.Remove(kubeconfig(spec.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cluster %q deleted, its kubeconfig not: %w", spec.Name, err)
	}
	return nil
}

// kubeconfig is where the suite keeps a cluster's kubeconfig.
func kubeconfig(name string) string {
	return filepath.Join(os.TempDir(), "gitops-conformance-"+name+".kubeconfig")
}

// ExportLogs writes kind's node logs under dir.
func (c *Cluster) ExportLogs(ctx context.Context, dir string) error {
	_, err := shell.Output(ctx, c.Kind, "export", "logs", dir, "--name", c.Name)
	return err
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
	_, err := shell.Output(ctx, c.Kind, "load", "docker-image", image, "--name", c.Name)
	return err
}
