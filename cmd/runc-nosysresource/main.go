package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

const dropped = "CAP_SYS_RESOURCE"

var realRuncs = []string{"/usr/sbin/runc", "/usr/bin/runc", "/usr/local/sbin/runc"}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintf(os.Stderr, "runc-nosysresource: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	cmd, bundle, process := parse(args)
	switch {
	case cmd == "exec" && process != "":
		if err := rewrite(process, dropFromProcess); err != nil {
			return err
		}
	case cmd == "create" || cmd == "run":
		if bundle == "" {
			bundle = "."
		}
		if err := rewrite(filepath.Join(bundle, "config.json"), dropFromSpec); err != nil {
			return err
		}
	}
	real, err := findRunc()
	if err != nil {
		return err
	}
	return syscall.Exec(real, append([]string{"runc"}, args...), os.Environ())
}

// parse finds the subcommand and the --bundle and --process values in a runc
// command line; global flags before the subcommand are skipped.
func parse(args []string) (cmd, bundle, process string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--bundle" || a == "-b":
			bundle = value()
		case len(a) > 9 && a[:9] == "--bundle=":
			bundle = a[9:]
		case a == "--process" || a == "-p":
			process = value()
		case len(a) > 10 && a[:10] == "--process=":
			process = a[10:]
		case cmd == "" && (a == "--root" || a == "--log" || a == "--log-format" || a == "--criu"):
			value()
		case cmd == "" && len(a) > 0 && a[0] != '-':
			cmd = a
		}
	}
	return cmd, bundle, process
}

func rewrite(path string, edit func(map[string]any)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %q: %w", path, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("parse %q: %w", path, err)
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("encode %q: %w", path, err)
	}
	return os.WriteFile(path, out, 0o600)
}

func dropFromSpec(spec map[string]any) {
	if p, ok := spec["process"].(map[string]any); ok {
		dropFromProcess(p)
	}
}

func dropFromProcess(p map[string]any) {
	caps, ok := p["capabilities"].(map[string]any)
	if !ok {
		return
	}
	for set, v := range caps {
		list, ok := v.([]any)
		if !ok {
			continue
		}
		kept := list[:0]
		for _, c := range list {
			if c != dropped {
				kept = append(kept, c)
			}
		}
		caps[set] = kept
	}
}

func findRunc() (string, error) {
	for _, p := range realRuncs {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no runc found in %v", realRuncs)
}
