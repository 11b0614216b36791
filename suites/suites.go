// Package suites holds the matrix data (matrix.yaml) and, behind the e2e build
// tag, the TestMain and tests that run it on kind clusters.
package suites

import (
	_ "embed"

	"github.com/gitops-conformance/suite/pkg/matrix"
)

//go:embed matrix.yaml
var matrixYAML []byte

// Matrix returns the parsed matrix data.
func Matrix() (*matrix.Data, error) { return matrix.Parse(matrixYAML) }
