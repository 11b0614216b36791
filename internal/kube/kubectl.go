package kube

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/gitops-conformance/suite/internal/shell"
)

// Kubectl runs the pinned kubectl against one cluster.
type Kubectl struct {
	Bin        string
	Kubeconfig string
}

func (k Kubectl) cmd(stdin io.Reader, args ...string) shell.Cmd {
	return shell.Cmd{Name: k.Bin, Args: append([]string{"--kubeconfig", k.Kubeconfig}, args...), Stdin: stdin}
}

// Run runs kubectl with args.
func (k Kubectl) Run(ctx context.Context, args ...string) (string, error) {
	return shell.Run(ctx, k.cmd(nil, args...))
}

// Apply applies a manifest server-side, taking ownership of conflicting fields.
func (k Kubectl) Apply(ctx context.Context, manifest string, args ...string) error {
	a := append([]string{"apply", "--server-side", "--force-conflicts", "--field-manager", "gitops-conformance", "-f", "-"}, args...)
	if _, err := shell.Run(ctx, k.cmd(strings.NewReader(manifest), a...)); err != nil {
		return fmt.Errorf("apply manifest: %w", err)
	}
	return nil
}

// ApplyFile applies a manifest file server-side.
func (k Kubectl) ApplyFile(ctx context.Context, path string, args ...string) error {
	a := append([]string{"apply", "--server-side", "--force-conflicts", "--field-manager", "gitops-conformance", "-f", path}, args...)
	if _, err := k.Run(ctx, a...); err != nil {
		return fmt.Errorf("apply %q: %w", path, err)
	}
	return nil
}
