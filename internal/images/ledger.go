package images

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gitops-conformance/suite/internal/shell"
	"github.com/gitops-conformance/suite/pkg/catalog"
)

// Built is one build this machine made, as the ledger under the cache keeps
// it (built/<recipe>-<version>.json): the images it gave, and how long it
// took when it built rather than found its cache. A plan reads it to say
// which builds a run still needs and what they cost here.
type Built struct {
	Recipe  string   `json:"recipe"`
	Version string   `json:"version"`
	Images  []string `json:"images"`
	// Sources are what the build read, as its recipe names them (the
	// "SOURCE:" lines of its output): for an ArgoCD release from module
	// zips each module@version and its zip's h1 hash, as upstream tagged it.
	Sources []string `json:"sources,omitempty"`
	// Seconds is the last build's time (a recipe that found its cache
	// leaves it as it was); 0: never measured here.
	Seconds  float64   `json:"seconds,omitempty"`
	Finished time.Time `json:"finished"`
}

// cacheHit is under what a recipe's run counts as having found its cache.
const cacheHit = time.Minute

func ledgerPath(cacheDir, recipe, version string) string {
	return filepath.Join(cacheDir, "built", recipe+"-"+version+".json")
}

// LedgerEntry reads what the ledger says of a build.
func LedgerEntry(cacheDir, recipe, version string) (Built, bool) {
	data, err := os.ReadFile(ledgerPath(cacheDir, recipe, version))
	if err != nil {
		return Built{}, false
	}
	var b Built
	return b, json.Unmarshal(data, &b) == nil
}

// record writes a recipe's run into the ledger: its images, and its time
// when it built (took longer than a cache hit). A failure to write is no
// build's failure: the plan then says the build is needed.
func (b *Builder) record(recipe, version string, imgs, sources []string, took time.Duration) {
	entry, _ := LedgerEntry(b.CacheDir, recipe, version)
	entry.Recipe, entry.Version, entry.Images, entry.Finished = recipe, version, imgs, time.Now().UTC()
	if len(sources) > 0 {
		entry.Sources = sources
	}
	if took >= cacheHit {
		entry.Seconds = took.Round(time.Second).Seconds()
	}
	data, _ := json.MarshalIndent(entry, "", "  ")
	path := ledgerPath(b.CacheDir, recipe, version)
	if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		_ = os.WriteFile(path, append(data, '\n'), 0o644)
	}
}

// Present reports whether a build is done here: the ledger has it and
// Docker holds every image it gave. A recipe changed since rebuilds all the
// same (its key is the recipe's to compute): the plan cannot tell that.
func Present(ctx context.Context, cacheDir, recipe, version string) (Built, bool) {
	entry, ok := LedgerEntry(cacheDir, recipe, version)
	if !ok || len(entry.Images) == 0 {
		return entry, false
	}
	out, err := shell.Output(ctx, "docker", append([]string{"image", "inspect", "--format", "{{.Id}}"}, entry.Images...)...)
	return entry, err == nil && strings.Count(strings.TrimSpace(out), "\n")+1 == len(entry.Images)
}

// NodeImagePresent reports whether the offline node image of Kubernetes k
// is built, for either answer of the host's CAP_SYS_RESOURCE check (known
// only at preflight).
func NodeImagePresent(ctx context.Context, repo string, cat *catalog.Catalog, k catalog.KubeVersion) bool {
	for _, nosys := range []bool{false, true} {
		b := &Builder{Repo: repo, Catalog: cat, NoSysResource: nosys}
		image, key, err := b.nodeImageName(k)
		if err == nil && b.Cached(ctx, image, key) {
			return true
		}
	}
	return false
}
