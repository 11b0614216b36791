package images

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The node image recipe's two readers of a release's go.mod,
// images/node/staging-check.sh and images/build/module.sh, run here against a
// module proxy laid out on disk (GOPROXY=file://...): no network, no Docker.

const fakeKubernetesMod = `module k8s.io/kubernetes

go 1.22.0

godebug default=go1.22

require (
	github.com/spf13/cobra v1.8.1
	k8s.io/api v0.0.0
	k8s.io/code-generator v0.0.0
	k8s.io/kube-proxy v0.0.0
	k8s.io/kubelet v0.0.0
	k8s.io/sample-apiserver v0.0.0
)

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/code-generator => ./staging/src/k8s.io/code-generator
	k8s.io/kube-proxy => ./staging/src/k8s.io/kube-proxy
	k8s.io/kubelet => ./staging/src/k8s.io/kubelet
	k8s.io/sample-apiserver => ./staging/src/k8s.io/sample-apiserver
)
`

const fakeEtcdMod = `module go.etcd.io/etcd/server/v3

go 1.24

require (
	go.etcd.io/etcd/api/v3 v3.9.1
	go.etcd.io/etcd/client/v2 v2.309.1
	go.uber.org/zap v1.27.0
)

replace (
	go.etcd.io/etcd/api/v3 => ../api
	go.etcd.io/etcd/client/v2 => ../client/v2
)

// Bad imports are sometimes causing attempts to pull that code.
replace go.etcd.io/etcd => ./FORBIDDEN_DEPENDENCY
`

// fakeProxy lays out a module proxy on disk holding each "path@version" with
// the given go.mod ("" for a minimal one) and returns its directory.
func fakeProxy(t *testing.T, mods map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for pv, mod := range mods {
		path, ver, _ := strings.Cut(pv, "@")
		if mod == "" {
			mod = "module " + path + "\n"
		}
		at := filepath.Join(dir, path, "@v")
		if err := os.MkdirAll(at, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(at, ver+".info"), []byte(`{"Version":"`+ver+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(at, ver+".mod"), []byte(mod), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// script runs one of the recipe's scripts against proxy and returns its
// stdout, stderr and exit status.
func script(t *testing.T, proxy, name string, args ...string) (string, string, int) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	repo, err := filepath.Abs(filepath.Join("..", "..")) // go test runs in the package's directory
	if err != nil {
		t.Fatal(err)
	}
	modcache := t.TempDir()
	// the module cache is read-only; make it removable before TempDir removes it
	t.Cleanup(func() {
		_ = filepath.WalkDir(modcache, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	cmd := exec.Command(filepath.Join(repo, name), args...)
	cmd.Env = append(os.Environ(), "GOPROXY=file://"+proxy, "GOMODCACHE="+modcache, "GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), code
}

func TestStagingCheck(t *testing.T) {
	complete := fakeProxy(t, map[string]string{
		"k8s.io/kubernetes@v1.40.1": fakeKubernetesMod,
		"k8s.io/api@v0.40.1":        "", "k8s.io/kube-proxy@v0.40.1": "", "k8s.io/kubelet@v0.40.1": "",
		// at other patch versions: never a substitute
		"k8s.io/kube-proxy@v0.40.0": "", "k8s.io/kubelet@v0.40.2": "",
	})
	out, errOut, code := script(t, complete, "images/node/staging-check.sh", "v1.40.1")
	if code != 0 || out != "" || errOut != "" {
		t.Errorf("complete release (code-generator and sample-* absent): exit %d, stdout %q, stderr %q; want 0 and nothing", code, out, errOut)
	}

	lacking := fakeProxy(t, map[string]string{
		"k8s.io/kubernetes@v1.40.1": fakeKubernetesMod,
		"k8s.io/api@v0.40.1":        "", "k8s.io/kube-proxy@v0.40.0": "", "k8s.io/kubelet@v0.40.2": "",
	})
	out, _, code = script(t, lacking, "images/node/staging-check.sh", "v1.40.1")
	want := "Kubernetes v1.40.1 cannot be built offline: the module proxy lacks k8s.io/kube-proxy, k8s.io/kubelet at v0.40.1\n"
	if code != 3 || out != want {
		t.Errorf("two staging modules only at other patch versions: exit %d, stdout %q; want 3, %q", code, out, want)
	}

	out, _, code = script(t, complete, "images/node/staging-check.sh", "v1.40.9")
	want = "Kubernetes v1.40.9 cannot be built offline: the module proxy lacks k8s.io/kubernetes at v1.40.9\n"
	if code != 3 || out != want {
		t.Errorf("no such release: exit %d, stdout %q; want 3, %q", code, out, want)
	}

	for _, bad := range []string{"1.40.1", "v1.40", "latest", ""} {
		out, errOut, code = script(t, complete, "images/node/staging-check.sh", bad)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 {
			t.Errorf("KUBE_VERSION %q: exit %d, stdout %q, stderr %q; want 2 and one line on stderr", bad, code, out, errOut)
		}
	}
}

// buildModule runs module.sh and returns the files it wrote.
func buildModule(t *testing.T, proxy, family, version string) (gomod, main, toolchain string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), family+"-"+version)
	if _, errOut, code := script(t, proxy, "images/build/module.sh", family, version, dir); code != 0 {
		t.Fatalf("module.sh %s %s: exit %d: %s", family, version, code, errOut)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return read("go.mod"), read("main.txt"), strings.TrimSpace(read("toolchain"))
}

func TestBuildModuleKubernetes(t *testing.T) {
	proxy := fakeProxy(t, map[string]string{
		"k8s.io/kubernetes@v1.40.1": fakeKubernetesMod,
		"k8s.io/kubernetes@v1.40.3": strings.Replace(fakeKubernetesMod, "go 1.22.0", "go 1.99", 1),
	})
	gomod, main, toolchain := buildModule(t, proxy, "kubernetes", "v1.40.1")
	for _, want := range []string{
		"\ngo 1.22.0\n", "\ngodebug default=go1.22\n", "\nrequire k8s.io/kubernetes v1.40.1\n",
		"\tk8s.io/api => k8s.io/api v0.40.1\n",
		"\tk8s.io/kube-proxy => k8s.io/kube-proxy v0.40.1\n",
		"\tk8s.io/kubelet => k8s.io/kubelet v0.40.1\n",
	} {
		if !strings.Contains(gomod, want) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}
	if n := strings.Count(gomod, "=>"); n != 3 || strings.Contains(gomod, "code-generator") || strings.Contains(gomod, "sample-") {
		t.Errorf("go.mod replaces %d modules, want the 3 staging modules a binary needs:\n%s", n, gomod)
	}
	if got := strings.Fields(main); len(got) != 7 || got[0] != "k8s.io/kubernetes/cmd/kubeadm" || got[6] != "k8s.io/kubernetes/cmd/kube-proxy" {
		t.Errorf("main.txt = %q, want the seven commands from kubeadm to kube-proxy", main)
	}
	if toolchain != "local" {
		t.Errorf("toolchain for go 1.22.0 = %q, want local", toolchain)
	}
	if _, _, toolchain = buildModule(t, proxy, "kubernetes", "v1.40.3"); toolchain != "go1.99.0" {
		t.Errorf("toolchain for go 1.99 = %q, want go1.99.0 (from the module proxy)", toolchain)
	}
}

func TestBuildModuleEtcd(t *testing.T) {
	proxy := fakeProxy(t, map[string]string{"go.etcd.io/etcd/server/v3@v3.9.1": fakeEtcdMod})
	gomod, main, _ := buildModule(t, proxy, "etcd", "v3.9.1")
	for _, want := range []string{
		"\nrequire go.etcd.io/etcd/server/v3 v3.9.1\n",
		"\tgo.etcd.io/etcd/api/v3 => go.etcd.io/etcd/api/v3 v3.9.1\n",
		"\tgo.etcd.io/etcd/client/v2 => go.etcd.io/etcd/client/v2 v2.309.1\n",
	} {
		if !strings.Contains(gomod, want) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}
	if strings.Contains(gomod, "FORBIDDEN") || strings.Count(gomod, "=>") != 2 {
		t.Errorf("go.mod should replace exactly the two siblings:\n%s", gomod)
	}
	if strings.TrimSpace(main) != "go.etcd.io/etcd/server/v3" {
		t.Errorf("main.txt = %q", main)
	}
}
