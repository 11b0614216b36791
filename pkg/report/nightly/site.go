package nightly

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/gitops-conformance/suite/pkg/report"
)

// The published history (a checkout of the gh-pages branch) is laid out
// here and nowhere else:
//
//	SITE/index.html               the nights and the grids (History)
//	SITE/.nojekyll                served as files, not through Jekyll
//	SITE/nights/<night>/          one night (Publish; LoadNights reads it):
//	  report.json                 the merged report
//	  diff.json, diff.md          what changed since the night before (none the first night)
//	  releases.json               what make releases found that night
//	  night.json                  the workflow run (NightInfo)
//	  report.html, report.md ...  the night's page, rendered from report.json
//
// A night is named by when its merged report started (NightOf), so a
// re-run of the same night replaces it.
const (
	nightsDir    = "nights"
	IndexFile    = "index.html"
	DiffJSON     = "diff.json"
	DiffMarkdown = "diff.md"
	releasesFile = "releases.json"
	nightFile    = "night.json"
)

// NightDir is where the night id lives in site.
func NightDir(site, id string) string { return filepath.Join(site, nightsDir, id) }

// NightOf names the night of a merged report: when it started, UTC.
func NightOf(r *report.Report) string { return r.Started.UTC().Format("20060102-150405") }

// NightBefore is the directory of the newest night in site before night
// ("" when there is none): the night a new one is compared with (a re-run of
// the same night is already there and is not its own night before).
func NightBefore(site, night string) string {
	dirs, _ := filepath.Glob(filepath.Join(site, nightsDir, "*", "report.json"))
	slices.Sort(dirs)
	last := ""
	for _, p := range dirs {
		if id := filepath.Base(filepath.Dir(p)); id < night {
			last = filepath.Dir(p)
		}
	}
	return last
}

// Publication is what a night adds to the site besides its report.
type Publication struct {
	Releases string // make releases' JSON of that night, when set
	RunURL   string // the workflow run
	Keep     int    // nights kept (the newest), older ones removed (git keeps them)
}

// Publish adds the merged report in out (with its diff.json and diff.md,
// when there) to site as a night and returns its name; it renders nothing
// (History and each night's Page do).
func Publish(out, site string, p Publication) (string, error) {
	r, err := report.LoadDir(out)
	if err != nil {
		return "", fmt.Errorf("publish %q: %w", out, err)
	}
	night := NightOf(r)
	dest := NightDir(site, night)
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return "", err
	}
	files := map[string]string{"report.json": filepath.Join(out, "report.json")}
	for _, f := range []string{DiffJSON, DiffMarkdown} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			files[f] = filepath.Join(out, f)
		}
	}
	if p.Releases != "" {
		files[releasesFile] = p.Releases
	}
	for name, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			return "", fmt.Errorf("publish: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dest, name), data, 0o644); err != nil {
			return "", err
		}
	}
	info, err := json.Marshal(NightInfo{RunURL: p.RunURL})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dest, nightFile), append(info, '\n'), 0o644); err != nil {
		return "", err
	}
	nights, err := filepath.Glob(filepath.Join(site, nightsDir, "*"))
	if err != nil {
		return "", err
	}
	slices.Sort(nights)
	if p.Keep > 0 && len(nights) > p.Keep {
		for _, old := range nights[:len(nights)-p.Keep] {
			if err := os.RemoveAll(old); err != nil {
				return "", err
			}
		}
	}
	return night, os.WriteFile(filepath.Join(site, ".nojekyll"), nil, 0o644)
}
