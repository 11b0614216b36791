package kyverno

import (
	"regexp"
	"strings"

	"github.com/gitops-conformance/suite/pkg/fixture"
)

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

// hookTemplate is how the chart declares the clean-reports hook: a Job named
// <fullname>-clean-reports with helm.sh/hook: post-upgrade (chart 3.4.x,
// templates/hooks/post-upgrade-clean-reports.yaml).
var hookTemplate = regexp.MustCompile(`(?s)kind: Job.*-clean-reports.*helm\.sh/hook: post-upgrade`)

// hookValues is the values.yaml key hook-disabled sets (policyReportsCleanup.enabled).
var hookValues = regexp.MustCompile(`(?m)^policyReportsCleanup:`)

// MissingHook says what a variant's mitigation needs that the chart's files
// lack, "" when they have it: every mitigation the clean-reports hook Job,
// hook-disabled also its policyReportsCleanup values. Charts from 3.5.1
// (Kyverno 1.15.1) on have neither.
func MissingHook(variant string) func(files map[string]string) string {
	return func(files map[string]string) string {
		hook := false
		for path, text := range files {
			if strings.HasPrefix(path, "templates/") && hookTemplate.MatchString(text) {
				hook = true
				break
			}
		}
		if !hook {
			return "no " + job + " post-upgrade hook Job in its templates: nothing for " + variant + " to mitigate"
		}
		if variant == "hook-disabled" && !hookValues.MatchString(files["values.yaml"]) {
			return "no policyReportsCleanup in its values.yaml: the value " + variant + " sets does not exist"
		}
		return ""
	}
}
