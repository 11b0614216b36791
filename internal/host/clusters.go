package host

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// The parts of a machine each kind cluster (with ArgoCD and a component)
// takes, from the suite's runs on a 2-core, 24 GiB machine: 1.5-3 GiB of
// memory (clusterMemory, with a margin), about 25 inotify instances (the
// sixth cluster's node exited at boot under Debian's 128), and a share of
// the CPU that lets three clusters run at once on two cores 2.6x as fast as
// one (reports/benchmarks/20261123-031156-matrix.md: kubeovn-argocd, 6 cells,
// 1091 s on one cluster, 412 s on three).
const (
	clusterMemoryGiB  = 3
	reservedMemoryGiB = 3 // the builds, Docker and the host
	clusterInotify    = 25
	// InotifyInstances is what preflight raises max_user_instances to.
	InotifyInstances = 512
)

// Machine is what bounds how many clusters run side by side here.
type Machine struct {
	Cores            int
	MemoryGiB        int
	InotifyInstances int
}

// ThisMachine reads the machine's cores, memory and inotify limit (raised
// to InotifyInstances by preflight where it is lower).
func ThisMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), MemoryGiB: 8, InotifyInstances: InotifyInstances}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.Atoi(f[1]); err == nil {
					m.MemoryGiB = kb >> 20
				}
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_instances"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			m.InotifyInstances = max(n, InotifyInstances)
		}
	}
	return m
}

func (m Machine) String() string {
	return fmt.Sprintf("%d cores, %d GiB, %d inotify instances", m.Cores, m.MemoryGiB, m.InotifyInstances)
}

// Clusters is how many kind clusters the machine runs side by side: one
// more than its cores (a cluster mostly waits on the API server and its
// controllers; measured, three on two cores), as memory and inotify allow.
func (m Machine) Clusters() int {
	return max(1, min(m.Cores+1, (m.MemoryGiB-reservedMemoryGiB)/clusterMemoryGiB, m.InotifyInstances/clusterInotify))
}
