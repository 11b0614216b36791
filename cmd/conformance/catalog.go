package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/gitops-conformance/suite/pkg/runner"
)

// catalogDefaults is catalog defaults: what the Makefile takes from the
// catalog, as make assignments (catalog.MakeDefaults), for bin/catalog.mk.
func catalogDefaults(_ context.Context, c cli, fs *flag.FlagSet, args []string) error {
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return &runner.BadInput{Err: fmt.Errorf("catalog defaults: unexpected argument %q", fs.Arg(0))}
	}
	_, err := io.WriteString(c.stdout, c.cat.MakeDefaults())
	return err
}
