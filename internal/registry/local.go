package registry

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/shell"
)

// Network is the Docker network kind puts its nodes on; the local registry
// joins it, as kind's local-registry guide does, so nodes reach it by its
// address there.
const Network = "kind"

// Label marks the containers the suite starts as registries.
const Label = "gitops-conformance.registry"

// Local is the suite's own registry: a container of the image
// images/registry builds, on the kind network, its storage a directory under
// the suite's cache directory (kept between runs, so a push only sends the
// layers it lacks), published on a loopback port for pushes from this host.
type Local struct {
	Name    string // container name
	Image   string // the registry image (images.Builder.Registry)
	DataDir string // storage, mounted at /var/lib/registry
	Push    string // 127.0.0.1:<port>: where this host pushes
	Mirror  Mirror // <address on the kind network>:5000: where nodes (and this host) pull
}

// DataDir is where a local registry of that name keeps its storage.
func DataDir(cacheDir, name string) string { return filepath.Join(cacheDir, "registry", name) }

// Start runs the registry (replacing a stopped or stale container of that
// name) and waits until it answers. The kind network is created when no
// cluster has made it yet (kind uses an existing one).
func Start(ctx context.Context, name, image, dataDir string, out io.Writer) (*Local, error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	if _, err := shell.Output(ctx, "docker", "network", "inspect", Network); err != nil {
		if _, err := shell.Output(ctx, "docker", "network", "create", Network); err != nil {
			return nil, fmt.Errorf("start registry %q: create docker network %q: %w", name, Network, err)
		}
	}
	_, _ = shell.Output(ctx, "docker", "rm", "-f", name)
	start := time.Now()
	if _, err := shell.Output(ctx, "docker", "run", "-d", "--restart=no", "--name", name, "--network", Network,
		"--label", Label+"="+name, "-p", "127.0.0.1::5000", "-v", dataDir+":/var/lib/registry", image); err != nil {
		return nil, fmt.Errorf("start registry %q: %w", name, err)
	}
	l := &Local{Name: name, Image: image, DataDir: dataDir}
	if err := l.inspect(ctx); err != nil {
		_ = l.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	for {
		err := l.Mirror.Probe(ctx)
		if err == nil {
			break
		}
		if time.Since(start) > 30*time.Second || ctx.Err() != nil {
			logs, _ := shell.Output(context.WithoutCancel(ctx), "docker", "logs", "--tail", "20", name)
			_ = l.Stop(context.WithoutCancel(ctx))
			return nil, fmt.Errorf("start registry %q: it does not answer: %v\n%s", name, err, logs)
		}
		select { // the container's process is starting: a bounded poll
		case <-ctx.Done():
		case <-time.After(300 * time.Millisecond):
		}
	}
	fmt.Fprintf(out, "registry %s: started in %s (nodes pull from %s, pushes go to %s, data in %s)\n",
		name, time.Since(start).Round(100*time.Millisecond), l.Mirror, l.Push, dataDir)
	return l, nil
}

// Attach finds a running local registry by container name.
func Attach(ctx context.Context, name string) (*Local, error) {
	l := &Local{Name: name}
	if err := l.inspect(ctx); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Local) inspect(ctx context.Context) error {
	out, err := shell.Output(ctx, "docker", "inspect", "--format",
		`{{.State.Running}} {{(index .NetworkSettings.Networks "`+Network+`").IPAddress}} {{(index (index .NetworkSettings.Ports "5000/tcp") 0).HostPort}} {{.Config.Image}}`, l.Name)
	if err != nil {
		return fmt.Errorf("registry %q: %w", l.Name, err)
	}
	f := strings.Fields(out)
	if len(f) != 4 || f[0] != "true" {
		return fmt.Errorf("registry %q is not running (%s)", l.Name, strings.TrimSpace(out))
	}
	l.Mirror = Mirror{Scheme: "http", Host: f[1] + ":5000"}
	l.Push = "127.0.0.1:" + f[2]
	l.Image = f[3]
	return nil
}

// PushImage copies a local image into the registry under its upstream path
// (a temporary tag is pushed and removed again; the image stays as it was).
func (l *Local) PushImage(ctx context.Context, image string) error {
	ref, err := ParseRef(image)
	if err != nil {
		return err
	}
	if ref.Digest != "" {
		return fmt.Errorf("push %s: a digest-pinned name cannot be pushed by tag", image)
	}
	if !slices.Contains(Upstreams, ref.Host) {
		return fmt.Errorf("push %s: the nodes do not pull %s through the registry (mirrored: %s)", image, ref.Host, strings.Join(Upstreams, ", "))
	}
	tmp := ref.MirrorName(l.Push)
	if _, err := shell.Output(ctx, "docker", "tag", image, tmp); err != nil {
		return fmt.Errorf("push %s: %w", image, err)
	}
	defer func() { _, _ = shell.Output(context.WithoutCancel(ctx), "docker", "rmi", "--no-prune", tmp) }()
	if _, err := shell.Output(ctx, "docker", "push", tmp); err != nil {
		return fmt.Errorf("push %s: %w", image, err)
	}
	return nil
}

// ConfigureNodes writes, into each kind node (a container name), containerd's
// hosts.toml for every upstream, naming the mirror. containerd reads them at
// each pull (its CRI config_path must name /etc/containerd/certs.d: see
// ContainerdPatch), so no restart is needed.
func ConfigureNodes(ctx context.Context, nodes []string, m Mirror) error {
	for _, node := range nodes {
		for _, up := range Upstreams {
			dir := "/etc/containerd/certs.d/" + up
			if _, err := shell.Run(ctx, shell.Cmd{Name: "docker", Args: []string{"exec", "-i", node, "sh", "-c",
				"mkdir -p " + dir + " && cat > " + dir + "/hosts.toml"}, Stdin: strings.NewReader(m.HostsTOML(up))}); err != nil {
				return fmt.Errorf("configure registry mirror on node %s: %w", node, err)
			}
		}
	}
	return nil
}

// Logs is the registry's log (one line per request).
func (l *Local) Logs(ctx context.Context) (string, error) {
	return shell.Output(ctx, "docker", "logs", l.Name)
}

// Stop removes the registry's container; its data stays in DataDir.
func (l *Local) Stop(ctx context.Context) error {
	return Stop(ctx, l.Name)
}

// Stop removes a registry container by name; none of that name is no error.
func Stop(ctx context.Context, name string) error {
	out, err := shell.Output(ctx, "docker", "rm", "-f", name)
	if err != nil && !strings.Contains(out+err.Error(), "No such container") {
		return fmt.Errorf("stop registry %q: %w", name, err)
	}
	return nil
}
