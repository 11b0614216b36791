package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryCommandHasHelp runs every command of the table with -h: it
// prints its usage line and every flag its flag set declares, and returns
// no error (exit 0). A command added to the table is covered here.
func TestEveryCommandHasHelp(t *testing.T) {
	cat, data := loadMatrix(t)
	for _, cmd := range commands() {
		for _, h := range []string{"-h", "-help", "--help"} {
			var out bytes.Buffer
			err := execute(context.Background(), cli{cat: cat, data: data, stdout: &out}, append(strings.Fields(cmd.name), h))
			if err != nil {
				t.Errorf("conformance %s %s: %v, want its help and exit 0", cmd.name, h, err)
				continue
			}
			help := out.String()
			if !strings.HasPrefix(help, "usage: conformance "+cmd.name) {
				t.Errorf("conformance %s %s printed %q, want its usage line first", cmd.name, h, help)
			}
			flagsOf(cmd).VisitAll(func(f *flag.Flag) {
				if !strings.Contains(help, "  -"+f.Name) {
					t.Errorf("conformance %s %s: its help leaves out -%s", cmd.name, h, f.Name)
				}
			})
		}
	}
	// the groups and the top
	for _, args := range [][]string{{"-h"}, {"help"}, {"report", "-h"}, {"registry", "help"}} {
		var out bytes.Buffer
		if err := execute(context.Background(), cli{cat: cat, data: data, stdout: &out}, args); err != nil || !strings.Contains(out.String(), "commands") {
			t.Errorf("conformance %v: %v, %q; want the commands and exit 0", args, err, out.String())
		}
	}
}

// TestCLIReference checks docs/cli.md is the table's reference
// (conformance help -markdown); -update writes it.
func TestCLIReference(t *testing.T) {
	file := filepath.Join("..", "..", "docs", "cli.md")
	want := Reference()
	if *update {
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: run make docs (or go test ./cmd/conformance -run TestCLIReference -update) and commit it", file)
	}
}

var update = flag.Bool("update", false, "write docs/cli.md")
