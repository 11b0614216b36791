package releases

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/sources"
)

// Source is where a module's versions are read: the module proxy the go
// command is configured with (GOPROXY), and the module's own repository.
type Source interface {
	// Versions are the versions the module proxy lists for module (its
	// /@v/list): possibly short, or refused, on a partial proxy.
	Versions(ctx context.Context, module string) ([]string, error)
	// Tags are the versions the module's own repository tags (the go
	// command with GOPROXY=direct): where a release is published first.
	Tags(ctx context.Context, module string) ([]string, error)
	// Lookup asks the module proxy for one exact version: nil when it
	// serves it, an error wrapping ErrNotPublished when it says the version
	// was never published (404, 410), another error when it refuses it (a
	// partial proxy answers 403 for versions it has not got, published or
	// not) or did not answer.
	Lookup(ctx context.Context, module, version string) error
	// GoMod is one exact version's go.mod, as the module proxy serves it
	// (the .mod alone: no zip).
	GoMod(ctx context.Context, module, version string) ([]byte, error)
}

// ErrNotPublished is a version the module proxy says was never published.
var ErrNotPublished = errors.New("not published")

// GoCommand is the real Source: the go command, with the machine's own
// module settings (GOPROXY, GONOPROXY, GOPRIVATE, .netrc) and the checksum
// database off, as the suite's builds run it.
type GoCommand struct{}

// Versions runs `go list -m -versions` on module.
func (GoCommand) Versions(ctx context.Context, module string) ([]string, error) {
	return goList(ctx, nil, module)
}

// Tags runs `go list -m -versions` on module with GOPROXY=direct: the go
// command lists the repository's tags (git ls-remote), the release tags
// that are versions of this module path.
func (GoCommand) Tags(ctx context.Context, module string) ([]string, error) {
	return goList(ctx, []string{"GOPROXY=direct"}, module)
}

// Lookup runs `go list -m module@version`: the version's .info only.
func (GoCommand) Lookup(ctx context.Context, module, version string) error {
	out, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"list", "-m", "-e", "-json", module + "@" + version},
		Env: goEnv(nil), Dir: os.TempDir()})
	if err != nil {
		return fmt.Errorf("look up %s@%s: %s", module, version, answer(err.Error()))
	}
	var m struct{ Error *struct{ Err string } }
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return fmt.Errorf("look up %s@%s: %w", module, version, err)
	}
	if m.Error == nil {
		return nil
	}
	if sources.NotPublished(errors.New(m.Error.Err)) {
		return fmt.Errorf("%s@%s: %w (%s)", module, version, ErrNotPublished, answer(m.Error.Err))
	}
	return fmt.Errorf("%s@%s: %s", module, version, answer(m.Error.Err))
}

// GoMod runs `go list -m -json module@version` (its .info and .mod only)
// and reads the go.mod it fetched.
func (GoCommand) GoMod(ctx context.Context, module, version string) ([]byte, error) {
	out, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"list", "-m", "-e", "-json", module + "@" + version},
		Env: goEnv(nil), Dir: os.TempDir()})
	if err != nil {
		return nil, fmt.Errorf("go.mod of %s@%s: %s", module, version, answer(err.Error()))
	}
	var m struct {
		GoMod string
		Error *struct{ Err string }
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, fmt.Errorf("go.mod of %s@%s: %w", module, version, err)
	}
	if m.Error != nil {
		return nil, fmt.Errorf("go.mod of %s@%s: %s", module, version, answer(m.Error.Err))
	}
	return os.ReadFile(m.GoMod)
}

func goList(ctx context.Context, env []string, module string) ([]string, error) {
	out, err := shell.Run(ctx, shell.Cmd{Name: "go", Args: []string{"list", "-m", "-e", "-versions", "-json", module},
		Env: goEnv(env), Dir: os.TempDir()})
	if err != nil {
		return nil, errors.New(answer(err.Error()))
	}
	var m struct {
		Versions []string
		Error    *struct{ Err string }
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		return nil, fmt.Errorf("go list -m -versions %s: %w", module, err)
	}
	if m.Error != nil {
		return nil, errors.New(answer(m.Error.Err))
	}
	return m.Versions, nil
}

func goEnv(extra []string) []string {
	return append(append([]string{"GOFLAGS=-mod=mod"}, shell.GoEnv("local")...), extra...)
}

// answer is what the server (or git) said, without the URL the go command
// read: "403 Forbidden (This module version is not available.)".
func answer(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	first := strings.TrimSuffix(strings.TrimSpace(lines[0]), ":")
	if i := strings.LastIndex(first, ": "); i >= 0 {
		first = first[i+2:]
	}
	if strings.HasPrefix(first, "exit status") && len(lines) > 1 {
		first = "git" // git ls-remote failed: what it said follows
	}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "server response:")
		l = strings.TrimPrefix(l, "fatal:")
		if l = strings.TrimSpace(l); l != "" {
			first += " (" + l + ")"
			break
		}
	}
	return first
}
