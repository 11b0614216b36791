package kyverno

import "github.com/gitops-conformance/suite/pkg/fixture"

// baseValues switch off what the scenario does not use, so that only the
// admission controller (kyverno, kyvernopre) and the clean-reports hook
// (kubectl) need images: the background, cleanup and reports controllers,
// the CRD-migration hook (kyverno-cli) and the webhook-cleanup hooks.
const baseValues = `admissionController:
  replicas: 1
backgroundController:
  enabled: false
cleanupController:
  enabled: false
reportsController:
  enabled: false
crds:
  migration:
    enabled: false
webhooksCleanup:
  enabled: false
`

// hookDisabled is the chart value that drops the clean-reports hook.
const hookDisabled = `policyReportsCleanup:
  enabled: false
`

// SyncOptions are the options every sync of the chart uses: Kyverno's CRDs
// are too large for client-side apply's last-applied annotation.
var SyncOptions = []string{"ServerSideApply=true"}

// Values are the chart values of a variant.
func Values(variant string) string {
	if variant == "hook-disabled" {
		return baseValues + hookDisabled
	}
	return baseValues
}

// Application installs the chart from the fixture repository as a Helm
// source with the variant's values.
func Application(variant string) fixture.App {
	return fixture.Application(map[string]any{"name": app, "namespace": namespace,
		"helm":        map[string]any{"releaseName": "kyverno", "values": Values(variant)},
		"syncOptions": SyncOptions,
		// a retry, as users configure: ArgoCD 3.x can fail an install sync with
		// "CRD is not established" on CRDs it created a moment before
		"retryLimit": 2})
}
