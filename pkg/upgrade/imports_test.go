package upgrade

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/gitops-conformance/suite/"

// make upgrade-check stands on the harness both commands share
// (pkg/appcell), not on make conform: nothing it compiles from, directly or
// through another of the suite's packages, is pkg/conform.
func TestUpgradeImportsNothingOfConform(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{} // package: the package that imports it
	queue := []string{module + "pkg/upgrade"}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		p, err := build.ImportDir(filepath.Join(root, strings.TrimPrefix(pkg, module)), 0)
		if err != nil {
			t.Fatalf("read %s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) || seen[imp] != "" {
				continue
			}
			seen[imp] = pkg
			queue = append(queue, imp)
		}
	}
	if by, ok := seen[module+"pkg/conform"]; ok {
		t.Errorf("pkg/upgrade reaches pkg/conform (imported by %s): what both need belongs in pkg/appcell", by)
	}
	if _, ok := seen[module+"pkg/appcell"]; !ok {
		t.Errorf("pkg/upgrade does not stand on pkg/appcell")
	}
}
