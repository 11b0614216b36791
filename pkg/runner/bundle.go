package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
)

// writeBundle writes a cell's REPRODUCE.md: versions, outcome, the command
// that replays exactly this cell.
func writeBundle(dir string, cat *catalog.Catalog, mode images.Mode, c matrix.Cell, outcome report.Outcome, reason string) {
	_ = os.MkdirAll(dir, 0o755)
	var b strings.Builder
	fmt.Fprintf(&b, "# Reproduction: %s / %s on ArgoCD %s\n\n", c.Scenario.Name, c.Variant.Name, c.ArgoCD)
	fmt.Fprintf(&b, "%s\n\nVariant: %s\n\n", c.Scenario.Summary, c.Variant.Summary)
	fmt.Fprintf(&b, "Outcome: **%s**: %s\n\n", outcome, reason)
	fmt.Fprintf(&b, "| what | version |\n|---|---|\n| ArgoCD | %s |\n| %s | %s |\n| Kubernetes | %s (kind %s) |\n| images | %s |\n\n",
		c.ArgoCD, c.Scenario.Component, c.ComponentVersion, cat.Kubernetes.Version, cat.Kind, mode)
	fmt.Fprintf(&b, "Replay exactly this cell with this suite (github.com/gitops-conformance/suite):\n\n    %s\n\n", c.Replay())
	b.WriteString("Steps with timestamps: steps.txt. Objects, events and controller logs: the other files here.\nUpstream: " + c.Scenario.Upstream + "\n")
	_ = os.WriteFile(filepath.Join(dir, "REPRODUCE.md"), []byte(b.String()), 0o644)
}
