package suites

import (
	_ "embed"
	"fmt"

	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/runner"
	"github.com/gitops-conformance/suite/scenarios/conversion"
	"github.com/gitops-conformance/suite/scenarios/guard"
	"github.com/gitops-conformance/suite/scenarios/kargo"
	"github.com/gitops-conformance/suite/scenarios/knative"
	"github.com/gitops-conformance/suite/scenarios/kubeovn"
	"github.com/gitops-conformance/suite/scenarios/kyverno"
	"github.com/gitops-conformance/suite/scenarios/longname"
	"github.com/gitops-conformance/suite/scenarios/openkruise"
)

//go:embed matrix.yaml
var matrixYAML []byte

// Matrix returns the parsed matrix data, checked against the scenarios' code:
// every scenario and variant it declares has code that handles it, and no
// more (runner.Scenarios.Check). The CLI and the e2e test binary both read
// it here, so a variant enters a run only as matrix.yaml declares it.
func Matrix() (*matrix.Data, error) {
	d, err := matrix.Parse(matrixYAML)
	if err != nil {
		return nil, err
	}
	if err := Scenarios().Check(d); err != nil {
		return nil, fmt.Errorf("suites/matrix.yaml: %w", err)
	}
	return d, nil
}

// Scenarios are the scenarios' code by name.
func Scenarios() runner.Scenarios {
	return runner.Scenarios{
		"conversion-outage":       {Feature: conversion.Feature, Variants: conversion.Variants},
		"kargo-argocd":            {Feature: kargo.Feature, Variants: kargo.Variants},
		"knative-argocd":          {Feature: knative.Feature, Variants: knative.Variants},
		"kubeovn-argocd":          {Feature: kubeovn.Feature, Variants: kubeovn.Variants},
		"kyverno-argocd":          {Feature: kyverno.Feature, Variants: kyverno.Variants},
		"longname-hooks-argocd":   {Feature: longname.Feature, Variants: longname.Variants},
		"openkruise-webhook":      {Feature: openkruise.Feature, Variants: openkruise.Variants},
		"openkruise-guard-argocd": {Feature: guard.Feature, Variants: guard.Variants},
	}
}
