package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/suites"
)

func TestReleases(t *testing.T) {
	published := map[string]bool{"v2.13.3": true, "v2.13.4": true, "v2.14.0": true, "v2.14.1": true, "v2.14.2": true}
	got, err := Releases(context.Background(), "v2.13.3", "v2.14.2", func(tag string) bool { return published[tag] })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"v2.13.3", "v2.13.4", "v2.14.0", "v2.14.1", "v2.14.2"}
	if !slices.Equal(got, want) {
		t.Fatalf("Releases = %v, want %v", got, want)
	}
	if _, err := Releases(context.Background(), "v2.14.2", "v2.13.3", nil); err == nil {
		t.Fatal("a reversed range must be an error")
	}
}

// loadMatrix is what main loads before it runs a command.
func loadMatrix(t *testing.T) (*catalog.Catalog, *matrix.Data) {
	t.Helper()
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, err := suites.Matrix()
	if err != nil {
		t.Fatal(err)
	}
	return cat, data
}

func TestCheckRejectsBadInputWithOneLine(t *testing.T) {
	cat, data := loadMatrix(t)
	for _, args := range [][]string{
		{"-scenario", "nope"},
		{"-scenario", "kubeovn-argocd", "-variant", "nope"},
		{"-argocd", "2.14"},
		{"-mode", "sometimes"},
	} {
		err := run(context.Background(), cat, data, "check", args)
		if _, ok := err.(usageError); !ok {
			t.Fatalf("check %v: want a usage error, got %v", args, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("check %v: error is not one line: %q", args, err)
		}
	}
	if !strings.Contains(List(cat, data), "kubeovn-argocd") {
		t.Fatal("list must name the scenarios")
	}
}
