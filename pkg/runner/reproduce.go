package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gitops-conformance/suite/internal/gitserver"
	"github.com/gitops-conformance/suite/internal/images"
	"github.com/gitops-conformance/suite/pkg/argocd"
	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/lifecycle"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/report"
	"github.com/gitops-conformance/suite/pkg/repro"
)

// writeBundle writes a cell's REPRODUCE.md (versions, outcome, the command
// that replays exactly this cell with the suite) and, from the record its
// steps left (lifecycle.ReproRecord), its reproduction bundle: repro/ and
// repro.tar.gz (pkg/repro), marked never run. A bundle the record cannot
// make says why in repro-error.txt; an error is a file it could not write.
func writeBundle(dir, runID, nodeImage, kube string, cat *catalog.Catalog, mode images.Mode, c matrix.Cell, outcome report.Outcome, reason string, observations []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Reproduction: %s / %s on ArgoCD %s\n\n", c.Scenario.Name, c.Variant.Name, c.ArgoCD)
	fmt.Fprintf(&b, "%s\n\nVariant: %s\n\n", c.Scenario.Summary, c.Variant.Summary)
	fmt.Fprintf(&b, "Outcome: **%s**: %s\n\n", outcome, reason)
	fmt.Fprintf(&b, "| what | version |\n|---|---|\n| ArgoCD | %s |\n| %s | %s |\n| Kubernetes | %s (kind %s) |\n| images | %s |\n\n",
		c.ArgoCD, c.Scenario.Component, c.ComponentVersion, kube, cat.Kind, mode)
	fmt.Fprintf(&b, "Replay exactly this cell with this suite (github.com/gitops-conformance/suite):\n\n    %s\n\n", c.Replay())
	b.WriteString("Without the suite: repro/ (README.md, the manifests, repro.sh), also as repro.tar.gz.\n")
	b.WriteString("Steps with timestamps: steps.txt. Objects, events and controller logs: the other files here.\nUpstream: " + c.Scenario.Upstream + "\n")
	if err := os.WriteFile(filepath.Join(dir, "REPRODUCE.md"), []byte(b.String()), 0o644); err != nil {
		return err
	}

	record := filepath.Join(dir, lifecycle.ReproRecord)
	log, err := repro.Load(record)
	if err != nil {
		return nil // the cell never ran its steps (skipped, or its setup failed)
	}
	rc := c.Report()
	bundle := repro.Cell{ID: rc.ID(), Run: runID, Scenario: c.Scenario.Name, Variant: c.Variant.Name,
		Summary: c.Scenario.Summary, VariantSummary: c.Variant.Summary, Upstream: c.Scenario.Upstream,
		Component: c.Scenario.Component, ComponentVersion: c.ComponentVersion, ArgoCD: c.ArgoCD.String(),
		Kubernetes: kube, Kind: cat.Kind, NodeImage: c.Kubernetes.OnlineNodeImage, SuiteNodeImage: nodeImage,
		Offline: mode == images.Offline, Mitigation: c.Variant.Mitigation(), Outcome: string(outcome), Reason: reason,
		Replay: c.Replay(), Observations: observations, ArgoCDConfig: argocd.Config,
		GitServer: gitserver.Manifest(c.ArgoCD.Image()), GitServerImage: c.ArgoCD.Image(), GitNamespace: gitserver.Namespace,
		GitProbeURL: gitserver.URL("reachability-probe"), PushScript: gitserver.PushScript}
	if err := repro.Write(dir, bundle, log, nil); err != nil {
		return os.WriteFile(filepath.Join(dir, "repro-error.txt"), []byte(err.Error()+"\n"), 0o644)
	}
	return os.Remove(record)
}
