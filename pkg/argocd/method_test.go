package argocd

import (
	"errors"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/internal/shell"
)

// The upgrade guides' own lines (docs/operator-manual/upgrading/overview.md):
// v2.14.11 line 24 and v3.2.12 line 24 apply client-side, v3.3.10 and v3.6.1
// line 23 server-side (read in their module zips, 2026-11-28).
func TestParseGuide(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		want       Method
		line       int
	}{
		{"before 3.3", "# Overview\n\n```bash\nkubectl apply -n argocd -f https://raw.githubusercontent.com/argoproj/argo-cd/<version>/manifests/install.yaml\n```\n", ClientSide, 4},
		{"from 3.3", "text\nkubectl apply -n argocd --server-side --force-conflicts -f https://raw.githubusercontent.com/argoproj/argo-cd/<version>/manifests/install.yaml\nkubectl apply -n argocd -f https://raw.githubusercontent.com/argoproj/argo-cd/<version>/manifests/install.yaml\n", ServerSide, 2},
		{"the HA manifest is not the install", "kubectl apply -n argocd -f https://x/manifests/ha/install.yaml\nkubectl apply -n argocd --server-side --force-conflicts -f https://x/manifests/install.yaml\n", ServerSide, 2},
	} {
		m, line, err := ParseGuide(tt.file)
		if err != nil || m != tt.want || line != tt.line {
			t.Errorf("%s: %q line %d, %v; want %q line %d", tt.name, m, line, err, tt.want, tt.line)
		}
	}
	if _, _, err := ParseGuide("no command here\n"); err == nil {
		t.Error("a guide without the command: no error")
	}
}

func TestParseMethod(t *testing.T) {
	for _, s := range []string{"server-side", "client-side"} {
		if m, err := ParseMethod(s); err != nil || string(m) != s {
			t.Errorf("ParseMethod(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseMethod("helm"); err == nil {
		t.Error("ParseMethod(helm): no error")
	}
}

// What kubectl printed when client-side apply of v3.5.1's install.yaml over
// v2.14.11 was refused (run 20261128-053114), its warnings left out.
func TestRefusals(t *testing.T) {
	out := `Warning: resource networkpolicies/argocd-server-network-policy is missing the kubectl.kubernetes.io/last-applied-configuration annotation which is required by kubectl apply.
networkpolicy.networking.k8s.io/argocd-server-network-policy configured
The CustomResourceDefinition "applicationsets.argoproj.io" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes`
	err := &ApplyError{Method: ClientSide, Err: &shell.Error{Command: "kubectl apply", Output: out, Err: errors.New("exit status 1")}}
	err.Refusals = refusals(err.Err)
	if len(err.Refusals) != 1 || !strings.Contains(err.Error(), `The CustomResourceDefinition "applicationsets.argoproj.io" is invalid: metadata.annotations: Too long`) {
		t.Errorf("refusals %q; Error() %q", err.Refusals, err.Error())
	}
	// kubectl went on past the refusal: the NetworkPolicy was applied.
	if n := applied(err.Err); n != 1 {
		t.Errorf("applied %d, want 1", n)
	}
}

// A refusal with nothing applied besides, and one whose output is not
// kubectl's, count no objects applied.
func TestAppliedNone(t *testing.T) {
	for _, err := range []error{
		&shell.Error{Command: "kubectl apply", Output: `error: the path "install.yaml" does not exist`, Err: errors.New("exit status 1")},
		errors.New("networkpolicy.networking.k8s.io/x configured"),
	} {
		if n := applied(err); n != 0 {
			t.Errorf("applied(%v) = %d, want 0", err, n)
		}
	}
}
