// Package suites is the spec of the matrix: matrix.yaml (which cells exist and
// what each is expected to show) and the scenarios that run them. Behind the
// e2e build tag, its TestMain is the e2e-framework entry point
// (`go test -tags e2e ./suites`) that hands the cells to pkg/runner.
package suites

import (
	_ "embed"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/scenarios/kargo"
	"github.com/gitops-conformance/suite/scenarios/knative"
	"github.com/gitops-conformance/suite/scenarios/kubeovn"
	"github.com/gitops-conformance/suite/scenarios/kyverno"
	"github.com/gitops-conformance/suite/scenarios/openkruise"
)

//go:embed matrix.yaml
var matrixYAML []byte

// Matrix returns the parsed matrix data.
func Matrix() (*matrix.Data, error) { return matrix.Parse(matrixYAML) }

// Scenarios are the scenario functions by name.
func Scenarios() runner.Scenarios {
	return runner.Scenarios{
		"kargo-argocd":       kargo.Feature,
		"knative-argocd":     knative.Feature,
		"kubeovn-argocd":     kubeovn.Feature,
		"kyverno-argocd":     kyverno.Feature,
		"openkruise-webhook": openkruise.Feature,
	}
}
