package selftest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gitops-conformance/suite/internal/shell"
)

// Process is a process of the machine: its pid and command line.
type Process struct {
	PID  int
	Args string
}

// SessionProcesses are the processes in session sid (read from /proc):
// every process a run started with a session of its own started in turn,
// whether in process groups of their own or not.
func SessionProcesses(sid int) []Process {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ps []Process
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		if s, ok := sessionOf(string(b)); !ok || s != sid {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		args, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		ps = append(ps, Process{PID: pid, Args: strings.TrimSpace(strings.ReplaceAll(string(args), "\x00", " "))})
	}
	return ps
}

// sessionOf is the session id in a /proc/<pid>/stat line: the 6th field,
// counted after the command name, which sits in parentheses and may itself
// hold spaces and parentheses.
func sessionOf(stat string) (int, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:]) // state ppid pgrp session ...
	if len(f) < 4 {
		return 0, false
	}
	s, err := strconv.Atoi(f[3])
	return s, err == nil
}

// Containers are the names of the Docker containers (running or not) whose
// name starts with prefix: a kind cluster's nodes and registry
// (<cluster>-control-plane, <cluster>-registry).
func Containers(ctx context.Context, prefix string) ([]string, error) {
	out, err := shell.Output(ctx, "docker", "ps", "-a", "--format", "{{.Names}}")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range strings.Fields(out) {
		if strings.HasPrefix(n, prefix) {
			names = append(names, n)
		}
	}
	return names, nil
}

// DockerUp says why no Docker engine answers, or "" when one does.
func DockerUp(ctx context.Context) error {
	_, err := shell.Output(ctx, "docker", "info")
	return err
}
