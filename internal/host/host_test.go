package host

import (
	"strings"
	"testing"
)

const (
	full        = uint64(0x1ffffffffff)
	noSysRes    = uint64(0x1fffeffffff) // this machine kind: bit 24 cleared
	runningWrap = WrapperRuntime
)

func TestDecide(t *testing.T) {
	tests := []struct {
		name    string
		facts   Facts
		want    Plan
		problem string
	}{
		{
			name:  "running engine on a full host is used untouched",
			facts: Facts{DockerCLI: true, DockerEngine: true, DefaultRuntime: "runc", CapBnd: full},
			want:  Plan{},
		},
		{
			name:  "running engine with the wrapper on a host without CAP_SYS_RESOURCE",
			facts: Facts{DockerCLI: true, DockerEngine: true, DefaultRuntime: runningWrap, CapBnd: noSysRes},
			want:  Plan{NoSysResource: true},
		},
		{
			name:    "running engine without the wrapper where it is needed",
			facts:   Facts{DockerCLI: true, DockerEngine: true, DefaultRuntime: "runc", CapBnd: noSysRes, Debian: true, Root: true},
			problem: "lacks CAP_SYS_RESOURCE",
		},
		{
			name:  "fresh Debian machine as root: install and start, with the wrapper",
			facts: Facts{DockerCLI: true, Debian: true, Root: true, CapBnd: noSysRes},
			want:  Plan{InstallPackages: []string{"docker.io", "containerd", "runc"}, StartDockerd: true, NoSysResource: true},
		},
		{
			name:  "installed but stopped engine is started",
			facts: Facts{DockerCLI: true, Dockerd: true, Debian: true, Root: true, CapBnd: full},
			want:  Plan{StartDockerd: true},
		},
		{
			name:    "no engine and not root",
			facts:   Facts{Debian: true, CapBnd: full},
			problem: "Docker is not installed",
		},
		{
			name:    "client only on another distribution",
			facts:   Facts{DockerCLI: true, Root: true, CapBnd: full},
			problem: "no Docker engine is running",
		},
		{
			name:  "missing build tools are installed on Debian",
			facts: Facts{DockerEngine: true, DefaultRuntime: "runc", Debian: true, Root: true, CapBnd: full, MissingTools: []string{"debootstrap", "jq"}},
			want:  Plan{InstallPackages: []string{"debootstrap", "jq"}},
		},
		{
			name:  "low inotify limits are raised as root",
			facts: Facts{DockerEngine: true, DefaultRuntime: "runc", Root: true, CapBnd: full, Inotify: [2]int{128, 600000}},
			want:  Plan{Sysctls: []string{"fs.inotify.max_user_instances=512"}},
		},
		{
			name:  "low inotify limits are left alone when not root, and unknown ones always",
			facts: Facts{DockerEngine: true, DefaultRuntime: "runc", CapBnd: full, Inotify: [2]int{128, 8192}},
			want:  Plan{},
		},
		{
			name:    "missing build tool elsewhere is one clear line",
			facts:   Facts{DockerEngine: true, DefaultRuntime: "runc", CapBnd: full, MissingTools: []string{"debootstrap"}},
			problem: `debootstrap is missing: install it (Debian package "debootstrap")`,
		},
		{
			name: "a full disk refuses the run in one line, before Docker is looked at",
			facts: Facts{Debian: true, Root: true, CapBnd: full, Disks: []Disk{
				{Path: "/var/lib/docker", What: "Docker's images and kind nodes", Free: 50 << 30},
				{Path: "/tmp", What: "temporary files", Free: 900 << 20}}},
			problem: "only 0.9 GiB free on /tmp (temporary files): a run needs at least 4.0 GiB there",
		},
		{
			name: "a low disk is said and the run goes on",
			facts: Facts{DockerEngine: true, DefaultRuntime: "runc", CapBnd: full, Disks: []Disk{
				{Path: "/var/lib/docker", What: "Docker's images and kind nodes", Free: 9 << 30}}},
			want: Plan{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.facts)
			if tt.problem != "" {
				if !strings.Contains(got.Problem, tt.problem) {
					t.Fatalf("Decide() problem = %q, want it to contain %q", got.Problem, tt.problem)
				}
				if strings.Contains(got.Problem, "\n") {
					t.Fatalf("problem must be one line: %q", got.Problem)
				}
				return
			}
			if got.String() != tt.want.String() {
				t.Fatalf("Decide() = %s, want %s", got, tt.want)
			}
			for _, d := range tt.facts.Disks {
				low := d.Free < DiskLow
				said := false
				for _, w := range got.Warnings {
					said = said || strings.Contains(w, d.Path)
				}
				if low != said {
					t.Errorf("disk %s with %s free: warned %v, want %v (warnings %q)", d.Path, gib(d.Free), said, low, got.Warnings)
				}
			}
		})
	}
}

func TestReadDisks(t *testing.T) {
	dir := t.TempDir()
	disks := readDisks([]Disk{
		{Path: dir, What: "a"},
		{Path: dir + "/not/made/yet", What: "b"}, // the same filesystem, read at its parent
	})
	if len(disks) != 1 || disks[0].Path != dir || disks[0].Free == 0 {
		t.Fatalf("readDisks = %+v, want one entry for %s with its free space", disks, dir)
	}
}

func TestHasCapSysResource(t *testing.T) {
	if !HasCapSysResource(full) {
		t.Error("full mask should hold CAP_SYS_RESOURCE")
	}
	if HasCapSysResource(noSysRes) {
		t.Error("0x1fffeffffff should lack CAP_SYS_RESOURCE")
	}
}

func TestDiskSpaceReadsTheDisksAgain(t *testing.T) {
	// The preflight's figure is stale by the time a build runs: DiskSpace
	// must read the filesystem, not trust Free (here 0, as if the disk was
	// full at the preflight, while this test's disk has room).
	stale := []Disk{{Path: t.TempDir(), What: "test", Free: 0}}
	if got := readDisks(stale); len(got) == 1 && got[0].Free < DiskMin {
		t.Skipf("this machine's temporary directory has under %s free", gib(DiskMin))
	}
	if err := DiskSpace(stale); err != nil {
		t.Fatalf("DiskSpace = %v, want nil: it must read the free space again", err)
	}
	if diskProblem(stale) == "" {
		t.Fatal("diskProblem of a 0-byte disk must refuse")
	}
}

func TestMachineClusters(t *testing.T) {
	for _, tc := range []struct {
		m    Machine
		want int
	}{
		{Machine{Cores: 2, MemoryGiB: 24, InotifyInstances: 512}, 3},  // the machine the suite is measured on
		{Machine{Cores: 16, MemoryGiB: 24, InotifyInstances: 512}, 7}, // memory bounds it
		{Machine{Cores: 16, MemoryGiB: 64, InotifyInstances: 128}, 5}, // inotify bounds it
		{Machine{Cores: 1, MemoryGiB: 4, InotifyInstances: 512}, 1},
	} {
		if got := tc.m.Clusters(); got != tc.want {
			t.Errorf("%+v: %d clusters, want %d", tc.m, got, tc.want)
		}
	}
}

// One reader of /proc/loadavg serves both callers: the first average as a number
// (the plan's probe line), the three as written (a benchmark's line).
func TestLoadAverages(t *testing.T) {
	load, ok := Load()
	avgs := LoadAverages()
	if !ok {
		if avgs != "?" {
			t.Errorf("no load average as a number, but %q as written", avgs)
		}
		return
	}
	f := strings.Fields(avgs)
	if len(f) != 3 || load < 0 {
		t.Errorf("load %v, averages %q: want three fields", load, avgs)
	}
}
