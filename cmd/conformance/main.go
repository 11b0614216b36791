// Command conformance is the suite's front end for what needs no cluster:
// listing the matrix, validating a selection before anything starts, and
// finding where an outcome changes between two ArgoCD tags (bisect).
// `make e2e` runs the cells themselves through `go test -tags e2e ./suites`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/gitops-conformance/suite/pkg/catalog"
	"github.com/gitops-conformance/suite/pkg/images"
	"github.com/gitops-conformance/suite/pkg/matrix"
	"github.com/gitops-conformance/suite/pkg/shell"
	"github.com/gitops-conformance/suite/pkg/sources"
	"github.com/gitops-conformance/suite/suites"
)

const usage = `usage: conformance <command> [flags]

commands:
  list                         scenarios, variants, ArgoCD and component versions
  check  [selection flags]     validate a selection; exit 2 with one line if invalid
  bisect -scenario S -variant V -from TAG -to TAG
                               find the last tag with one outcome and the first with another
  ` + reportUsage + `
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	cat, err := catalog.Load()
	if err == nil {
		var data *matrix.Data
		if data, err = suites.Matrix(); err == nil {
			err = run(context.Background(), cat, data, os.Args[1], os.Args[2:])
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if _, ok := err.(usageError); ok {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is bad input: one line, exit 2, nothing started.
type usageError struct{ error }

func run(ctx context.Context, cat *catalog.Catalog, data *matrix.Data, cmd string, args []string) error {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	scenario := fs.String("scenario", "", "scenarios, comma-separated")
	variant := fs.String("variant", "", "variants, comma-separated")
	argocd := fs.String("argocd", "", "ArgoCD tags, comma-separated")
	version := fs.String("version", "", "component versions, comma-separated (replace the variants')")
	mode := fs.String("mode", "auto", "auto, online or offline")
	from := fs.String("from", "", "bisect: first tag")
	to := fs.String("to", "", "bisect: last tag")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	sel := matrix.Selection{Scenarios: matrix.ParseList(*scenario), Variants: matrix.ParseList(*variant), ArgoCD: matrix.ParseList(*argocd), Versions: matrix.ParseList(*version)}
	switch cmd {
	case "list":
		fmt.Print(List(cat, data))
		return nil
	case "check":
		return check(ctx, cat, data, sel, *mode)
	case "bisect":
		return bisect(ctx, cat, data, *scenario, *variant, *from, *to)
	case "report":
		return reportCommand(fs.Args(), os.Stdout)
	}
	return usageError{fmt.Errorf("unknown command %q (valid: list, check, bisect, report)", cmd)}
}

func check(ctx context.Context, cat *catalog.Catalog, data *matrix.Data, sel matrix.Selection, mode string) error {
	if _, err := images.ParseMode(mode); err != nil {
		return usageError{err}
	}
	cells, err := data.Plan(cat, sel)
	if err != nil {
		return usageError{err}
	}
	if len(cells) == 0 {
		return usageError{fmt.Errorf("the selection has no cells (scenarios: %s)", strings.Join(data.Names(), ", "))}
	}
	for _, tag := range sel.ArgoCD {
		if err := releaseExists(ctx, cat, tag); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// releaseExists asks the module proxy whether an ArgoCD tag exists.
func releaseExists(ctx context.Context, cat *catalog.Catalog, tag string) error {
	mod, err := cat.ArgoCDModule(tag)
	if err != nil {
		return err
	}
	if _, err := sources.ModuleInfo(ctx, mod, tag); err != nil {
		return fmt.Errorf("argocd version %s: no such release (%s); the default axis is %s", tag, lastLine(err.Error()), strings.Join(cat.ArgoCD.Default, ", "))
	}
	return nil
}

// List renders the matrix for `make list`.
func List(cat *catalog.Catalog, data *matrix.Data) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Kubernetes %s (kind %s); ArgoCD default axis: %s (any release tag works: ARGOCD=v2.14.5)\n\n",
		cat.Kubernetes.Version, cat.Kind, strings.Join(cat.ArgoCD.Default, ", "))
	for _, s := range data.Scenarios {
		axis := s.ArgoCD
		if len(axis) == 0 {
			axis = cat.ArgoCD.Default
		}
		fmt.Fprintf(&b, "%s (%s; ArgoCD %s)\n  %s\n", s.Name, s.Component, strings.Join(axis, ", "), s.Summary)
		if s.OfflineSkip != "" {
			fmt.Fprintf(&b, "  offline: SKIPPED: %s\n", s.OfflineSkip)
		}
		for _, v := range s.Variants {
			fmt.Fprintf(&b, "  - %-20s %s %-9s %s\n", v.Name, s.Component, strings.Join(v.Versions(), ","), v.Summary)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func lastLine(s string) string {
	return strings.TrimSpace(strings.TrimPrefix(shell.LastLine(s), "server response:"))
}
