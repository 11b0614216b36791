package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Gather reads the host's facts; cacheDir is the suite's build cache.
func Gather(ctx context.Context, cacheDir string) Facts {
	f := Facts{Root: os.Geteuid() == 0}
	_, err := exec.LookPath("docker")
	f.DockerCLI = err == nil
	dataRoot := DefaultDockerRoot
	if f.DockerCLI {
		if out, err := shell.Output(ctx, "docker", "info", "--format", "{{.DefaultRuntime}} {{.DockerRootDir}}"); err == nil {
			f.DockerEngine = true
			runtime, root, _ := strings.Cut(strings.TrimSpace(out), " ")
			f.DefaultRuntime = runtime
			if root != "" {
				dataRoot = root
			}
		}
	}
	f.Disks = readDisks(DiskPaths(dataRoot, cacheDir))
	_, err = exec.LookPath("dockerd")
	f.Dockerd = err == nil
	_, err = os.Stat("/etc/debian_version")
	f.Debian = err == nil
	f.CapBnd = readCapBnd()
	for i, key := range InotifyKeys {
		data, err := os.ReadFile("/proc/sys/" + strings.ReplaceAll(key, ".", "/"))
		if err == nil {
			f.Inotify[i], _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
	}
	for _, tool := range sortedTools() {
		if _, err := exec.LookPath(tool); err != nil {
			f.MissingTools = append(f.MissingTools, tool)
		}
	}
	return f
}

func sortedTools() []string { return []string{"debootstrap", "git", "jq"} }

func readCapBnd() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return ^uint64(0)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err == nil {
				return n
			}
		}
	}
	return ^uint64(0)
}

// Apply carries out a plan. repo is the suite's checkout (the wrapper is built
// from it); logf prints progress.
func Apply(ctx context.Context, p Plan, repo string, logf func(string, ...any)) error {
	if p.Problem != "" {
		return fmt.Errorf("%s", p.Problem)
	}
	if len(p.InstallPackages) > 0 {
		logf("apt-get install %s", strings.Join(p.InstallPackages, " "))
		// another run installing at the same time (two checkouts on a new
		// machine) holds apt's locks: wait for it instead of failing at once
		if _, err := shell.Output(ctx, "apt-get", aptLockWait, "update", "-qq"); err != nil {
			return fmt.Errorf("install packages: %w", err)
		}
		args := append([]string{aptLockWait, "install", "-y", "-qq", "--no-install-recommends"}, p.InstallPackages...)
		if _, err := shell.Env(ctx, []string{"DEBIAN_FRONTEND=noninteractive"}, "apt-get", args...); err != nil {
			return fmt.Errorf("install packages: %w", err)
		}
	}
	for _, kv := range p.Sysctls {
		key, value, _ := strings.Cut(kv, "=")
		if err := os.WriteFile("/proc/sys/"+strings.ReplaceAll(key, ".", "/"), []byte(value), 0o644); err != nil {
			return fmt.Errorf("sysctl %s: %w", kv, err)
		}
		logf("sysctl %s (kind nodes take inotify instances: kind's known issues)", kv)
	}
	if !p.StartDockerd {
		return nil
	}
	if p.NoSysResource {
		if err := installWrapper(ctx, repo); err != nil {
			return err
		}
	}
	return startDockerd(ctx, logf)
}

// aptLockWait makes apt-get wait up to 5 minutes for a lock another apt-get
// holds (apt >= 1.9.11; older releases ignore it).
const aptLockWait = "-oDPkg::Lock::Timeout=300"

// WrapperPath is where the runc wrapper is installed on the host.
const WrapperPath = "/usr/local/bin/" + WrapperRuntime

func installWrapper(ctx context.Context, repo string) error {
	env := append([]string{"CGO_ENABLED=0"}, catalog.SuiteToolchainEnv()...)
	if _, err := shell.Env(ctx, env, "go", "build", "-C", repo, "-o", WrapperPath, "./cmd/runc-nosysresource"); err != nil {
		return fmt.Errorf("build %s: %w", WrapperRuntime, err)
	}
	const daemonJSON = "/etc/docker/daemon.json"
	cfg := map[string]any{}
	if data, err := os.ReadFile(daemonJSON); err == nil {
		if err := json.Unmarshal(data, &cfg); err != nil {
			return fmt.Errorf("read %q: %w", daemonJSON, err)
		}
	}
	runtimes, _ := cfg["runtimes"].(map[string]any)
	if runtimes == nil {
		runtimes = map[string]any{}
	}
	runtimes[WrapperRuntime] = map[string]any{"path": WrapperPath}
	cfg["runtimes"] = runtimes
	cfg["default-runtime"] = WrapperRuntime
	data, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.MkdirAll(filepath.Dir(daemonJSON), 0o755); err != nil {
		return err
	}
	return os.WriteFile(daemonJSON, data, 0o644)
}

// DockerdLog is where a dockerd started by the suite logs.
const DockerdLog = "/var/log/gitops-conformance-dockerd.log"

func startDockerd(ctx context.Context, logf func(string, ...any)) error {
	logf("starting dockerd (log %s)", DockerdLog)
	logFile, err := os.OpenFile(DockerdLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start dockerd: %w", err)
	}
	defer logFile.Close()
	cmd := exec.Command("dockerd")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start dockerd: %w", err)
	}
	_ = cmd.Process.Release()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := shell.Output(ctx, "docker", "info", "--format", "{{.ServerVersion}}"); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return fmt.Errorf("start dockerd: no answer within 60s; see %s", DockerdLog)
}
