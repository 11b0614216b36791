package host

import (
	"fmt"
	"strings"
)

// capSysResource is the bit of CAP_SYS_RESOURCE in a capability mask.
const capSysResource = 24

// WrapperRuntime is the Docker runtime name the wrapper is registered under.
const WrapperRuntime = "runc-nosysresource"

// Facts are what the preflight reads off the host.
type Facts struct {
	DockerCLI      bool   // a docker client is on PATH
	DockerEngine   bool   // `docker info` answers
	DefaultRuntime string // the engine's default runtime, when it answers
	Dockerd        bool   // a dockerd binary is installed
	Debian         bool   // /etc/debian_version exists
	Root           bool
	CapBnd         uint64 // CapBnd from /proc/self/status
	MissingTools   []string
	// Inotify holds fs.inotify.max_user_instances and max_user_watches (0:
	// unknown). Each kind node's systemd takes inotify instances: with
	// Debian's 128, a few clusters on one host and the next node exits at
	// boot ("Failed to create control group inotify object: Too many open files").
	Inotify [2]int
	// Disks: the free space where the suite writes (DiskPaths), one per filesystem.
	Disks []Disk
}

// InotifyMin are the inotify limits kind's known-issues page recommends
// (instances, watches); the preflight raises lower ones as root.
var InotifyMin = [2]int{512, 524288}

// InotifyKeys are the sysctls behind Facts.Inotify.
var InotifyKeys = [2]string{"fs.inotify.max_user_instances", "fs.inotify.max_user_watches"}

// Plan is what the preflight will do, or the one problem that stops it.
type Plan struct {
	InstallPackages []string
	StartDockerd    bool
	// NoSysResource: the host lacks CAP_SYS_RESOURCE; Docker must run
	// privileged containers through the wrapper and node images carry it too.
	NoSysResource bool
	// Sysctls to raise (name=value), as root.
	Sysctls []string
	// Warnings are said before the run and do not stop it (a low disk).
	Warnings []string
	Problem  string
}

// Tools the offline builds shell out to, with the Debian package that has each.
var Tools = map[string]string{
	"debootstrap": "debootstrap",
	"jq":          "jq",
	"git":         "git",
}

// HasCapSysResource reports whether a CapBnd mask holds CAP_SYS_RESOURCE.
func HasCapSysResource(capBnd uint64) bool {
	return capBnd&(1<<capSysResource) != 0
}

// Decide turns facts into a plan. An engine that answers is used untouched;
// one is installed and started only on Debian as root.
func Decide(f Facts) Plan {
	if problem := diskProblem(f.Disks); problem != "" {
		return Plan{Problem: problem}
	}
	p := Plan{NoSysResource: !HasCapSysResource(f.CapBnd), Warnings: diskWarnings(f.Disks)}
	if f.Root {
		for i, have := range f.Inotify {
			if have > 0 && have < InotifyMin[i] {
				p.Sysctls = append(p.Sysctls, fmt.Sprintf("%s=%d", InotifyKeys[i], InotifyMin[i]))
			}
		}
	}
	canInstall := f.Debian && f.Root
	for _, tool := range f.MissingTools {
		if !canInstall {
			return Plan{Problem: fmt.Sprintf("%s is missing: install it (Debian package %q) and run again", tool, Tools[tool])}
		}
		p.InstallPackages = append(p.InstallPackages, Tools[tool])
	}
	if f.DockerEngine {
		if p.NoSysResource && f.DefaultRuntime != WrapperRuntime {
			return Plan{Problem: fmt.Sprintf("this host lacks CAP_SYS_RESOURCE and the running Docker engine's default runtime is %q: "+
				"stop dockerd and run again to let the suite configure it, or set %q (cmd/runc-nosysresource) as its default runtime", f.DefaultRuntime, WrapperRuntime)}
		}
		return p
	}
	if !canInstall {
		missing := "no Docker engine is running"
		if !f.DockerCLI {
			missing = "Docker is not installed"
		}
		return Plan{Problem: missing + ": install Docker and start it (or run as root on Debian to let the suite do it)"}
	}
	if !f.Dockerd {
		p.InstallPackages = append(p.InstallPackages, "docker.io", "containerd", "runc")
	}
	p.StartDockerd = true
	return p
}

// String is the plan as one line for the log.
func (p Plan) String() string {
	if p.Problem != "" {
		return "problem: " + p.Problem
	}
	var parts []string
	if len(p.InstallPackages) > 0 {
		parts = append(parts, "install "+strings.Join(p.InstallPackages, " "))
	}
	if len(p.Sysctls) > 0 {
		parts = append(parts, "sysctl "+strings.Join(p.Sysctls, " "))
	}
	if p.StartDockerd {
		parts = append(parts, "start dockerd")
	}
	if p.NoSysResource {
		parts = append(parts, "use "+WrapperRuntime+" (host lacks CAP_SYS_RESOURCE)")
	}
	if len(parts) == 0 {
		return "nothing to do"
	}
	return strings.Join(parts, ", ")
}
