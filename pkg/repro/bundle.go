package repro

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Cell is what a bundle says about the cell it reproduces, and the
// environment the script recreates.
type Cell struct {
	ID               string `json:"id"`
	Run              string `json:"run"`
	Scenario         string `json:"scenario"`
	Variant          string `json:"variant"`
	Summary          string `json:"summary"`
	VariantSummary   string `json:"variant_summary"`
	Upstream         string `json:"upstream"`
	Component        string `json:"component"`
	ComponentVersion string `json:"component_version"`
	ArgoCD           string `json:"argocd"`
	Kubernetes       string `json:"kubernetes"`
	Kind             string `json:"kind"`
	// NodeImage is the upstream kind node image the script uses by default;
	// SuiteNodeImage the one the cell ran on (offline: the suite's build).
	NodeImage      string `json:"node_image"`
	SuiteNodeImage string `json:"suite_node_image"`
	// Offline: the cell ran on images the suite built under the upstream names.
	Offline    bool   `json:"offline"`
	Mitigation bool   `json:"mitigation"`
	Outcome    string `json:"outcome"`
	Reason     string `json:"reason"`
	Replay     string `json:"replay"`
	// Observations are what the cell recorded besides its verdict.
	Observations []string `json:"observations,omitempty"`
	// ArgoCDConfig is what the suite sets in argocd-cm after the install.
	ArgoCDConfig map[string]string `json:"argocd_config,omitempty"`
	// GitServer is the in-cluster git daemon's manifest; PushScript replaces
	// a repository's tree with a tar on stdin (run in the server's Pod).
	GitServer      string `json:"git_server"`
	GitServerImage string `json:"git_server_image"`
	GitNamespace   string `json:"git_namespace"`
	GitProbeURL    string `json:"git_probe_url"`
	PushScript     string `json:"push_script"`
}

// InstallURL is the ArgoCD release's own install.yaml.
func InstallURL(tag string) string {
	return "https://raw.githubusercontent.com/argoproj/argo-cd/" + tag + "/manifests/install.yaml"
}

// outcomes of a variant: the verdict held, or not.
func outcomes(mitigation bool) (yes, no string) {
	if mitigation {
		return "MITIGATED", "NOT_MITIGATED"
	}
	return "REPRODUCED", "NOT_REPRODUCED"
}

// Verification is a run of a bundle's repro.sh by the suite.
type Verification struct {
	At      time.Time `json:"at"`
	Command string    `json:"command"`
	Outcome string    `json:"outcome"` // what the script's run reached (its OUTCOME line)
	Reached bool      `json:"reached"` // the script exited 0: the cell's verdict
	Seconds float64   `json:"seconds"`
	Output  string    `json:"output"` // the script's output, in the bundle
}

// Files of a bundle directory.
const (
	BundleDir    = "repro"
	Archive      = "repro.tar.gz"
	cellFile     = "bundle.json"
	recordFile   = "record.json"
	verifiedFile = "verification.json"
)

// Write writes the bundle of a cell into dir/repro/ and dir/repro.tar.gz.
func Write(dir string, c Cell, l *Log, v *Verification) error {
	root := filepath.Join(dir, BundleDir)
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	files, err := Files(c, l, v)
	if err != nil {
		return err
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if name == "repro.sh" {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			return err
		}
	}
	return archive(filepath.Join(dir, Archive), files)
}

// Files are the bundle's files by their path in it.
func Files(c Cell, l *Log, v *Verification) (map[string]string, error) {
	files := map[string]string{
		"README.md":       README(c, l, v),
		"repro.sh":        Script(c, l),
		"git-server.yaml": c.GitServer,
		"images.txt":      strings.Join(Images(l), "\n") + "\n",
	}
	var walk func([]Step)
	walk = func(steps []Step) {
		for _, s := range steps {
			for p, content := range s.Files {
				files[p] = content
			}
			if s.Check != nil {
				for p, content := range s.Check.Files {
					files[p] = content
				}
			}
			walk(s.Steps)
		}
	}
	walk(l.Steps)
	for name, v := range map[string]any{cellFile: c, recordFile: l, verifiedFile: v} {
		if name == verifiedFile && v == (*Verification)(nil) {
			continue
		}
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, err
		}
		files[name] = string(data) + "\n"
	}
	if err := noSecrets(files); err != nil {
		return nil, err
	}
	return files, nil
}

// privateKey is a PEM private key: a bundle never holds one.
var privateKey = regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----`)

func noSecrets(files map[string]string) error {
	for name, content := range files {
		if privateKey.MatchString(content) {
			return fmt.Errorf("bundle file %s holds a private key: not written", name)
		}
	}
	return nil
}

// Read reads a bundle Write wrote: its cell, record and verification (nil: never run).
func Read(dir string) (Cell, *Log, *Verification, error) {
	root := filepath.Join(dir, BundleDir)
	var c Cell
	data, err := os.ReadFile(filepath.Join(root, cellFile))
	if err != nil {
		return c, nil, nil, fmt.Errorf("read bundle %s: %w", root, err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, nil, nil, fmt.Errorf("read bundle %s: %w", root, err)
	}
	l, err := Load(filepath.Join(root, recordFile))
	if err != nil {
		return c, nil, nil, err
	}
	var v *Verification
	if data, err := os.ReadFile(filepath.Join(root, verifiedFile)); err == nil {
		v = &Verification{}
		if err := json.Unmarshal(data, v); err != nil {
			return c, nil, nil, fmt.Errorf("read bundle %s: %w", root, err)
		}
	}
	return c, l, v, nil
}

func archive(path string, files map[string]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	w := tar.NewWriter(gz)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		mode := int64(0o644)
		if n == "repro.sh" {
			mode = 0o755
		}
		if err := w.WriteHeader(&tar.Header{Name: BundleDir + "/" + n, Mode: mode, Size: int64(len(files[n])), ModTime: time.Unix(0, 0)}); err != nil {
			return err
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := gz.Close(); err != nil {
		return err
	}
	return f.Close()
}

// README is the bundle's README.md, written for an upstream issue tracker.
func README(c Cell, l *Log, v *Verification) string {
	var b strings.Builder
	yes, no := outcomes(c.Mitigation)
	fmt.Fprintf(&b, "# %s: %s\n\n%s\n\n", c.Scenario, c.Variant, c.Summary)
	if c.VariantSummary != "" {
		fmt.Fprintf(&b, "Variant `%s`: %s\n\n", c.Variant, c.VariantSummary)
	}
	if c.Upstream != "" {
		fmt.Fprintf(&b, "Upstream: %s\n\n", c.Upstream)
	}
	b.WriteString("## Environment\n\n| what | version |\n|---|---|\n")
	fmt.Fprintf(&b, "| Kubernetes | %s (kind %s) |\n| ArgoCD | %s ([install.yaml](%s)) |\n", c.Kubernetes, c.Kind, c.ArgoCD, InstallURL(c.ArgoCD))
	switch {
	case c.Component != "" && c.ComponentVersion != "":
		fmt.Fprintf(&b, "| %s | %s |\n", c.Component, c.ComponentVersion)
	case c.Component != "":
		fmt.Fprintf(&b, "| %s | not installed (the variant stands in for it) |\n", c.Component)
	}
	images := "upstream images, pulled by the node"
	if c.Offline {
		images = "built by the suite from the projects' sources under the upstream names (no registry was reachable); the script pulls the upstream ones"
	}
	fmt.Fprintf(&b, "| images | %s |\n\n", images)

	b.WriteString("## Verification\n\n")
	switch {
	case v == nil:
		b.WriteString("**Never run.** This bundle was generated from the cell's steps; nobody has run its repro.sh yet.\n\n")
	case v.Reached:
		fmt.Fprintf(&b, "Run by the suite on %s (`%s`, %.0f s): **reached the cell's verdict, %s.** Output: `%s`.\n\n",
			v.At.UTC().Format(time.RFC3339), v.Command, v.Seconds, v.Outcome, v.Output)
	default:
		fmt.Fprintf(&b, "Run by the suite on %s (`%s`, %.0f s): **did not reach the cell's verdict** (%s): it ended %s. Output: `%s`.\n\n",
			v.At.UTC().Format(time.RFC3339), v.Command, v.Seconds, c.Outcome, v.Outcome, v.Output)
	}

	b.WriteString("## Expected and actual\n\n")
	seen := map[string]bool{}
	for _, s := range verdictSteps(l.Steps) {
		if seen[s.What] {
			continue
		}
		seen[s.What] = true
		if c.Mitigation {
			fmt.Fprintf(&b, "- Expected with the mitigation: %s.\n", s.What)
		} else {
			fmt.Fprintf(&b, "- Expected (no bug): not \"%s\".\n", s.What)
		}
	}
	fmt.Fprintf(&b, "- Actual, in the cell (run %s): **%s**: %s\n\n", c.Run, c.Outcome, oneLine(c.Reason))
	fmt.Fprintf(&b, "repro.sh judges like the cell (%s when every verdict check holds, else %s) and exits 0 when it reaches %s.\n\n", yes, no, c.Outcome)

	b.WriteString("## Evidence\n\nWhat the suite's checks saw when each wait and verdict ended:\n\n")
	var evidence func([]Step)
	evidence = func(steps []Step) {
		for _, s := range steps {
			if s.Seen != "" && (s.Kind.Verdict() || s.Kind == Wait || s.Kind == Hold) {
				label := ""
				if s.Kind.Verdict() {
					label = "verdict: "
				}
				fmt.Fprintf(&b, "    %s%s\n      %s -> %s\n", label, oneLine(s.What), clip(s.Result, 600), clip(s.Seen, 600))
			}
			evidence(s.Steps)
		}
	}
	evidence(l.Steps)
	if len(c.Observations) > 0 {
		b.WriteString("\nWhat the cell recorded besides (UTC):\n\n")
		for _, o := range c.Observations {
			fmt.Fprintf(&b, "    %s\n", clip(o, 600))
		}
	}
	b.WriteString("\n## Steps\n\nrepro.sh creates a kind cluster, installs ArgoCD from the release's install.yaml, starts an in-cluster\n")
	b.WriteString("git daemon (git-server.yaml, in the ArgoCD image) that the Applications read from, then does what the cell did:\n\n")
	var list func([]Step, string)
	n := 0
	list = func(steps []Step, indent string) {
		for _, s := range steps {
			n++
			tag := ""
			switch {
			case s.Kind.Verdict():
				tag = " **(verdict)**"
			case s.Kind == Branch && !s.Taken:
				tag = " (the cell did not take this branch)"
			case s.Kind == Branch:
				tag = " (the cell took this branch)"
			}
			files := stepFiles(s)
			fmt.Fprintf(&b, "%s%d. %s: %s%s%s\n", indent, n, s.Kind, oneLine(s.What), files, tag)
			if s.Note != "" {
				fmt.Fprintf(&b, "%s   (%s)\n", indent, oneLine(s.Note))
			}
			list(s.Steps, indent+"   ")
		}
	}
	list(l.Steps, "")
	b.WriteString("\n## Run it\n\n    ./repro.sh                     # needs kind, kubectl, docker, curl, openssl\n")
	b.WriteString("    KEEP=1 ./repro.sh              # keep the cluster to look around\n")
	b.WriteString("    REPRO_LOAD_IMAGES=1 ./repro.sh # kind-load the images in images.txt from the local Docker\n\n")
	b.WriteString("Nothing here is a credential: values the cell made at run time (a webhook certificate, an admin\n")
	b.WriteString("password hash, a signing key) are made anew by the script (openssl) and are not in this bundle.\n\n")
	fmt.Fprintf(&b, "With the suite (github.com/gitops-conformance/suite) the same cell runs as `%s`.\n", c.Replay)
	return b.String()
}

func stepFiles(s Step) string {
	var names []string
	for p := range s.Files {
		names = append(names, p)
	}
	if s.Check != nil {
		for p := range s.Check.Files {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	dirs := map[string]bool{}
	var out []string
	for _, n := range names {
		if parts := strings.SplitN(n, "/", 3); len(parts) > 1 && parts[0] == "repos" {
			d := parts[0] + "/" + parts[1] + "/"
			if !dirs[d] {
				dirs[d] = true
				out = append(out, "`"+d+"`")
			}
			continue
		}
		out = append(out, "`"+n+"`")
	}
	return " (" + strings.Join(out, ", ") + ")"
}

func verdictSteps(steps []Step) []Step {
	var out []Step
	for _, s := range steps {
		if s.Kind.Verdict() {
			out = append(out, s)
		}
		out = append(out, verdictSteps(s.Steps)...)
	}
	return out
}
