package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// File returns one file of a component release, from its Go module zip in
// either mode, and where it came from.
func File(ctx context.Context, cat *catalog.Catalog, component, version, key string) ([]byte, string, error) {
	comp, rel, err := cat.File(component, key)
	if err != nil {
		return nil, "", err
	}
	dir, err := ModuleDir(ctx, comp.Module, version)
	if err != nil {
		return nil, "", err
	}
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return nil, "", fmt.Errorf("read %s %s %s: %w", component, version, key, err)
	}
	return data, fmt.Sprintf("%s@%s/%s (Go module zip)", comp.Module, version, rel), nil
}

// ModuleDir downloads a module at an exact version and returns its directory.
// The proxy here is partial: exact versions only, checksum database off. A
// module whose go line asks for a newer Go than the machine's (ArgoCD 3.6:
// go 1.27.0), which the local go will not extract, is downloaded again with
// the catalog's approved toolchain of that Go.
func ModuleDir(ctx context.Context, module, version string) (string, error) {
	m, err := DownloadModule(ctx, module, version)
	return m.Dir, err
}

// Module is a module version as downloaded: its directory, and its zip's
// hash as go.sum holds it (h1:...), what a build read.
type Module struct{ Dir, Sum string }

// DownloadModule is ModuleDir with the zip's hash.
func DownloadModule(ctx context.Context, module, version string) (Module, error) {
	env := append([]string{"GOFLAGS=-mod=mod"}, shell.GoEnv("local")...)
	out, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"mod", "download", "-json", module + "@" + version}, Env: env, Dir: os.TempDir()})
	var m struct{ Dir, Sum, Error string }
	_ = json.Unmarshal([]byte(out), &m)
	if need := NeedsGo(m.Error); need != "" {
		cat, cerr := catalog.Load()
		if cerr != nil {
			return Module{}, cerr
		}
		toolchain, terr := cat.GoToolchain(need)
		if terr != nil {
			return Module{}, fmt.Errorf("download %s@%s: %s; %w", module, version, m.Error, terr)
		}
		m.Dir, m.Sum, m.Error = "", "", ""
		out, err = shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"mod", "download", "-json", module + "@" + version},
			Env: append([]string{"GOFLAGS=-mod=mod"}, catalog.ToolchainEnv(toolchain)...), Dir: os.TempDir()})
		_ = json.Unmarshal([]byte(out), &m)
	}
	if m.Error != "" {
		return Module{}, fmt.Errorf("download %s@%s: %s", module, version, m.Error)
	}
	if err != nil {
		return Module{}, fmt.Errorf("download %s@%s: %w", module, version, err)
	}
	return Module{Dir: m.Dir, Sum: m.Sum}, nil
}

var requiresGo = regexp.MustCompile(`requires go >= ([0-9][0-9.]*) \(running go`)

// NeedsGo is the Go version a go command's error says a module requires
// ("requires go >= 1.27.0 (running go 1.26.8; GOTOOLCHAIN=local)"), or "".
func NeedsGo(msg string) string {
	if m := requiresGo.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

// Get fetches a URL (online mode: release manifests, charts, files).
func Get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(resp.Body)
}

// Document returns the YAML document of a multi-document manifest whose
// metadata.name is name (a top-level "  name: " line under metadata).
func Document(manifest []byte, name string) (string, error) {
	for _, doc := range strings.Split(string(manifest), "\n---") {
		if strings.Contains(doc, "\n  name: "+name+"\n") {
			return strings.TrimSpace(doc) + "\n", nil
		}
	}
	return "", fmt.Errorf("no document named %q in the manifest", name)
}

// notPublished are how a failed module lookup says the version was never
// published: the proxy's 404 or 410, an unknown revision.
var notPublished = []string{"404 Not Found", "410 Gone", "unknown revision", "invalid version"}

// NotPublished reports whether a failed module lookup says the version was
// never published (the proxy's 404 or 410, an unknown revision), as opposed
// to one the proxy refuses (403) or a lookup that got no answer.
func NotPublished(err error) bool { return err != nil && answer(err.Error(), notPublished) != "" }

// forbidden is how this machine's proxy refuses a release it lacks.
const forbidden = "403 Forbidden"

// Refusal is the answer of a failed module lookup that a retry would not
// change, "403 Forbidden" (the proxy's refusal) or one of notPublished, as
// the lookup said it; "" for any other failure (no answer, a network error).
func Refusal(err error) string {
	if err == nil {
		return ""
	}
	return answer(err.Error(), append([]string{forbidden}, notPublished...))
}

// answer is the first of answers msg holds, or "".
func answer(msg string, answers []string) string {
	for _, a := range answers {
		if strings.Contains(msg, a) {
			return a
		}
	}
	return ""
}

// ProxyLister lists a module's published versions through the Go module
// proxy (`go list -m -versions`): the catalog.Lister the suite uses.
type ProxyLister struct{}

// Versions is the proxy's list of module's versions.
func (ProxyLister) Versions(ctx context.Context, module string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"list", "-m", "-versions", "-json", module},
		Env: append([]string{"GOFLAGS=-mod=mod"}, shell.GoEnv("local")...), Dir: os.TempDir()})
	if err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %s", module, strings.TrimSpace(strings.TrimPrefix(shell.LastLine(err.Error()), "server response:")))
	}
	var m struct{ Versions []string }
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %w", module, err)
	}
	return m.Versions, nil
}

// ModuleInfo asks the module proxy for a version's metadata only (no zip):
// the cheap way to learn whether a release tag exists.
func ModuleInfo(ctx context.Context, module, version string) (string, error) {
	out, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"list", "-m", "-json", module + "@" + version},
		Env: append([]string{"GOFLAGS=-mod=mod"}, shell.GoEnv("local")...), Dir: os.TempDir()})
	if err != nil {
		return "", fmt.Errorf("look up %s@%s: %w", module, version, err)
	}
	return out, nil
}

// ErrNoGoMod is a version whose .info the module proxy serves but not its
// go.mod: it exists, and does not download.
var ErrNoGoMod = errors.New("the module proxy serves its .info but not its go.mod")

// Served asks the module proxy whether a version can be had: its metadata
// and its go.mod (this machine's proxy serves some releases' .info and
// refuses their go.mod, which no build gets past). The error is
// ModuleInfo's, or ErrNoGoMod.
func Served(ctx context.Context, module, version string) error {
	out, err := ModuleInfo(ctx, module, version)
	if err != nil {
		return err
	}
	var info struct{ GoMod string }
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.GoMod == "" {
		return fmt.Errorf("%s@%s: %w", module, version, ErrNoGoMod)
	}
	return nil
}

// Requirement reads the version a module's go.mod at version requires of dep
// (a replace directive wins), through the module proxy: the go.mod only,
// no zip.
func Requirement(ctx context.Context, module, version, dep string) (string, error) {
	out, err := ModuleInfo(ctx, module, version)
	if err != nil {
		return "", err
	}
	var info struct{ GoMod string }
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.GoMod == "" {
		return "", fmt.Errorf("look up %s@%s: no go.mod in the answer", module, version)
	}
	data, err := os.ReadFile(info.GoMod)
	if err != nil {
		return "", err
	}
	return RequiredVersion(data, dep)
}

// RequiredVersion is the version a go.mod requires of dep, or what a replace
// directive replaces it with ("path version", or a local path).
func RequiredVersion(gomod []byte, dep string) (string, error) {
	required, replaced := "", ""
	for _, line := range strings.Split(string(gomod), "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimPrefix(strings.TrimPrefix(line, "require "), "replace ")
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != dep {
			continue
		}
		if i := slices.Index(f, "=>"); i > 0 { // dep [version] => path [version]
			replaced = strings.Join(f[i+1:], " ")
			continue
		}
		required = f[1]
	}
	if replaced != "" {
		return replaced, nil
	}
	if required == "" {
		return "", fmt.Errorf("go.mod does not require %s", dep)
	}
	return required, nil
}
