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

// TestedFile is where an ArgoCD release lists the Kubernetes versions it
// was tested on, in its module (and tree) at its tag.
const TestedFile = "docs/operator-manual/tested-kubernetes-versions.md"

// Tested is the Kubernetes minors an ArgoCD release was tested on, as its
// own TestedFile says, newest first ("v1.35", "v1.34", ...).
type Tested struct {
	Minors []string
	// Where the list was read: module@tag:path.
	Source string
}

// Has says whether a Kubernetes version (v1.30.4) is of a minor tested.
func (t Tested) Has(kube string) bool {
	n := catalog.TagNumbers(kube)
	minor := fmt.Sprintf("v%d.%d", n[0], n[1])
	for _, m := range t.Minors {
		if m == minor {
			return true
		}
	}
	return false
}

// String is the range as the report shows it: "v1.32-v1.35".
func (t Tested) String() string {
	if len(t.Minors) == 0 {
		return ""
	}
	return t.Minors[len(t.Minors)-1] + "-" + t.Minors[0]
}

// ReadTested reads rel's TestedFile from its module zip (the module proxy
// serves every release's zip; from 3.3 it lacks only the nested
// gitops-engine module, not docs/).
func ReadTested(ctx context.Context, rel catalog.Release) (Tested, error) {
	dir, err := sources.ModuleDir(ctx, rel.Module(), rel.String())
	if err != nil {
		return Tested{}, err
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(TestedFile)))
	if err != nil {
		return Tested{}, fmt.Errorf("%s@%s has no %s: %w", rel.Module(), rel, TestedFile, err)
	}
	minors, err := ParseTested(string(data), rel)
	if err != nil {
		return Tested{}, fmt.Errorf("%s@%s:%s: %w", rel.Module(), rel, TestedFile, err)
	}
	return Tested{Minors: minors, Source: fmt.Sprintf("%s@%s:%s", rel.Module(), rel, TestedFile)}, nil
}

var testedRow = regexp.MustCompile(`^\|\s*(\d+\.\d+)\s*\|\s*([^|]*)\|`)

// ParseTested reads the row of rel's minor line from the table of a
// TestedFile ("| 3.4 | v1.35, v1.34, v1.33, v1.32 |").
func ParseTested(file string, rel catalog.Release) ([]string, error) {
	n := catalog.TagNumbers(rel.String())
	line := fmt.Sprintf("%d.%d", n[0], n[1])
	for _, l := range strings.Split(file, "\n") {
		m := testedRow.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil || m[1] != line {
			continue
		}
		var minors []string
		for _, v := range strings.Split(m[2], ",") {
			if v = strings.TrimSpace(v); v != "" {
				minors = append(minors, v)
			}
		}
		if len(minors) > 0 {
			return minors, nil
		}
	}
	return nil, fmt.Errorf("no row for %s", line)
}
