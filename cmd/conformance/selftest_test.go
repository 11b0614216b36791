package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/runner"
)

// The self-tests and benchmarks refuse what they cannot run with one line
// and exit 2, before Docker, a build or a cluster.
func TestSelftestAndBenchBadInput(t *testing.T) {
	cat, data := loadMatrix(t)
	for _, args := range [][]string{
		{"selftest", "fault", "-e2e", "/nonexistent/e2e.test"},
		{"selftest", "fault", "-fault", "unplug"},
		{"selftest", "interrupt", "-cases", "at-build,at-lunch"},
		{"selftest", "mirror", "-e2e", "/nonexistent/e2e.test"},
		{"bench", "quick", "-scenario", "no-such-scenario", "-plan"},
		{"bench", "infra", "-argocd", "v0.0.1-nope", "-plan"},
		{"bench", "delivery", "-argocd", "not-a-tag", "-plan"},
		{"bench", "matrix", "-parallel", "0", "-plan"},
		{"bench", "builds", "-builds", "kargo@v0.0.1", "-plan"},
		{"bench", "builds", "-builds", "kube-ovn@v1.14.10", "-plan"},
		{"bench", "builds", "-builds", "kargo", "-plan"},
	} {
		err := execute(context.Background(), cli{cat: cat, data: data, stdout: &bytes.Buffer{}}, args)
		if !runner.IsBadInput(err) {
			t.Errorf("conformance %s: %v, want bad input (exit 2)", strings.Join(args, " "), err)
		}
	}
}

// -plan says what a benchmark runs and runs nothing.
func TestBenchPlan(t *testing.T) {
	cat, data := loadMatrix(t)
	for args, want := range map[string]string{
		"bench quick -plan -scenario kubeovn-argocd -cluster c": "make e2e SCENARIO=kubeovn-argocd PARALLEL=auto CLUSTER=c E2E_REPORTS=",
		"bench infra -plan -cluster c":                          "2. cluster c from the suite's node image",
		"bench delivery -plan -argocd " + cat.ArgoCD.Smoke:      "argocd " + cat.ArgoCD.Smoke + " images",
	} {
		var out bytes.Buffer
		if err := execute(context.Background(), cli{cat: cat, data: data, stdout: &out}, strings.Fields(args)); err != nil || !strings.Contains(out.String(), want) {
			t.Errorf("conformance %s: %v, printed %q; want %q in it", args, err, out.String(), want)
		}
	}
}
