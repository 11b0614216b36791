package argocd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Method is how a release's install manifests go over the running ones in
// an in-place upgrade: what the team types.
type Method string

const (
	// ServerSide is `kubectl apply -n argocd --server-side
	// --force-conflicts -f install.yaml`, the upgrade guide's command from
	// v3.3.0.
	ServerSide Method = "server-side"
	// ClientSide is `kubectl apply -n argocd -f install.yaml`, the upgrade
	// guide's command before v3.3.0.
	ClientSide Method = "client-side"
	// SelfManaged is ArgoCD upgraded by an Application of its own: its
	// install.yaml in git, synced with the sync options the team gives.
	SelfManaged Method = "self-managed"
	// Kustomize is the team's own kustomize overlay of the install
	// manifests (OVERLAY), the release's install.yaml in the place of the
	// one it names, built and applied server-side.
	Kustomize Method = "kustomize"
)

// Methods are the methods an upgrade can take, in the order help lists them.
var Methods = []Method{ServerSide, ClientSide, SelfManaged, Kustomize}

// ParseMethod reads a METHOD value; "" is the release's guide (Guide).
func ParseMethod(s string) (Method, error) {
	for _, m := range Methods {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, len(Methods))
	for i, m := range Methods {
		names[i] = string(m)
	}
	return "", fmt.Errorf("no upgrade method %q (one of: %s; empty: what the release's upgrade guide says)", s, strings.Join(names, ", "))
}

// Command is the method's command line, as the guide spells it.
func (m Method) Command() string {
	switch m {
	case ServerSide:
		return "kubectl apply -n argocd --server-side --force-conflicts -f install.yaml"
	case SelfManaged:
		return "install.yaml pushed to git and synced by ArgoCD's own Application " + SelfApp
	case Kustomize:
		return "kubectl kustomize OVERLAY (the release's install.yaml in place of the one it names) | kubectl apply -n argocd --server-side --force-conflicts -f -"
	}
	return "kubectl apply -n argocd -f install.yaml"
}

// SelfApp is the Application a self-managed ArgoCD upgrades itself with.
const SelfApp = "argocd"

// GuideFile is where a release's upgrade guide gives the command that
// upgrades it, in the release's source.
const GuideFile = "docs/operator-manual/upgrading/overview.md"

// Guide is the method a release's own upgrade guide gives and where it was
// read (module@tag:file:line).
type Guide struct {
	Method Method
	Source string
}

// ReadGuide reads the method rel's upgrade guide gives, from GuideFile in
// its module zip (served for every release, docs included).
func ReadGuide(ctx context.Context, rel catalog.Release) (Guide, error) {
	dir, err := sources.ModuleDir(ctx, rel.Module(), rel.String())
	if err != nil {
		return Guide{}, err
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(GuideFile)))
	if err != nil {
		return Guide{}, fmt.Errorf("%s@%s has no %s: %w", rel.Module(), rel, GuideFile, err)
	}
	m, line, err := ParseGuide(string(data))
	if err != nil {
		return Guide{}, fmt.Errorf("%s@%s:%s: %w", rel.Module(), rel, GuideFile, err)
	}
	return Guide{Method: m, Source: fmt.Sprintf("%s@%s:%s:%d", rel.Module(), rel, GuideFile, line)}, nil
}

var guideApply = regexp.MustCompile(`^kubectl apply .*-f \S*manifests/install\.yaml`)

// ParseGuide finds the guide's command that applies install.yaml and says
// which method it is, and on which line (1-based).
func ParseGuide(file string) (Method, int, error) {
	for i, l := range strings.Split(file, "\n") {
		l = strings.TrimSpace(l)
		if !guideApply.MatchString(l) {
			continue
		}
		if strings.Contains(l, "--server-side") {
			return ServerSide, i + 1, nil
		}
		return ClientSide, i + 1, nil
	}
	return "", 0, fmt.Errorf("no `kubectl apply ... -f .../manifests/install.yaml` line")
}
