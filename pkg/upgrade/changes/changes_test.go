package changes

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Each change names a release that parses, an id once, what keeps the old
// behaviour or adapts to it, and a line of ArgoCD v3.6.1's upgrade guides
// that is the heading of that change: a guide that moved its text fails
// here, not in a team's report.
func TestEachChangeSaysWhereTheGuideSaysSo(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-json", "github.com/argoproj/argo-cd/v3").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/argoproj/argo-cd/v3: %v", err)
	}
	var mod struct{ Version, Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Skipf("ArgoCD's module zip is not in the module cache (go mod download github.com/argoproj/argo-cd/v3): %s", out)
	}
	if mod.Version != "v3.6.1" {
		t.Fatalf("go.mod requires ArgoCD %s; the guides' lines were read at v3.6.1", mod.Version)
	}
	seen := map[string]bool{}
	for _, c := range Catalog {
		if seen[c.ID] {
			t.Errorf("%s: twice", c.ID)
		}
		seen[c.ID] = true
		if n := catalog.TagNumbers(c.Since); n[0] < 2 || c.Title == "" || c.Detail == "" || c.Restore+c.Adapt == "" || c.match == nil {
			t.Errorf("%s: a release, a title, a detail, what to do and a matcher, all needed: %+v", c.ID, c)
		}
		file, line, _ := strings.Cut(c.Guide, ":")
		n, err := strconv.Atoi(line)
		if err != nil {
			t.Errorf("%s: guide %q: not file:line", c.ID, c.Guide)
			continue
		}
		if got := lineOf(t, filepath.Join(mod.Dir, "docs/operator-manual/upgrading", file), n); !strings.HasPrefix(got, "#") {
			t.Errorf("%s: %s is %q, not a heading of the guide", c.ID, c.Guide, got)
		}
	}
}

func lineOf(t *testing.T, path string, n int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	return ""
}

// A change explains only on an upgrade that crosses its release, and only
// what it does: the tracking label gone, not another label.
func TestExplainOnlyWhatTheUpgradeCrosses(t *testing.T) {
	label := Difference{Part: Render, Object: "ConfigMap n/c", Path: ".metadata.labels.app.kubernetes.io/instance", From: `"a"`}
	if c := Explain(label, "v2.14.11", "v3.0.0"); c == nil || c.ID != "tracking-annotation" {
		t.Errorf("v2.14.11 -> v3.0.0: %v, want tracking-annotation", c)
	}
	for _, path := range [][2]string{{"v3.0.0", "v3.6.1"}, {"v2.14.3", "v2.14.11"}} {
		if c := Explain(label, path[0], path[1]); c != nil {
			t.Errorf("%s -> %s crosses no 3.0: explained by %s", path[0], path[1], c.ID)
		}
	}
	other := label
	other.Path = ".metadata.labels.team"
	if c := Explain(other, "v2.14.11", "v3.6.1"); c != nil {
		t.Errorf("another label gone: explained by %s", c.ID)
	}
	ep := Difference{Part: Unmanaged, Object: "Endpoints t/db"}
	if c := Explain(ep, "v2.14.11", "v3.6.1"); c == nil || c.ID != "default-resource-exclusions" || c.Impact != Breaking {
		t.Errorf("an Endpoints no longer managed: %v", c)
	}
	if c := Explain(Difference{Part: Unmanaged, Object: "ConfigMap t/c"}, "v2.14.11", "v3.6.1"); c != nil {
		t.Errorf("a ConfigMap no longer managed, no exclusion said: explained by %s", c.ID)
	}
}
