package repro

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Kind is what a recorded step is to the script.
type Kind string

const (
	// Do changes the cluster: Shell, with Files.
	Do Kind = "do"
	// Wait is a precondition: Check within Timeout, or the run is an error.
	Wait Kind = "wait"
	// Hold is a precondition that must hold for Hold.
	Hold Kind = "hold"
	// Symptom is a verdict: Check holds for Hold.
	Symptom Kind = "symptom"
	// Occurs is a verdict: Check comes true within Timeout.
	Occurs Kind = "occurs"
	// Resolved is a verdict: Check comes true within Timeout, then holds for Hold.
	Resolved Kind = "resolved"
	// Unsettled is a verdict whose "yes" is the opposite of Resolved's: yes
	// unless Check comes true within Timeout and then holds for Hold.
	Unsettled Kind = "unsettled"
	// Observe looks once (within Timeout when set) and prints what it saw; never a verdict.
	Observe Kind = "observe"
	// Branch runs Steps when Check is Want.
	Branch Kind = "branch"
)

// Verdict reports whether a kind of step decides the cell's verdict.
func (k Kind) Verdict() bool { return k == Symptom || k == Occurs || k == Resolved || k == Unsettled }

// Step is one thing the cell did.
type Step struct {
	Kind Kind   `json:"kind"`
	What string `json:"what"`
	// Shell is a Do step's bash lines; files are "$BUNDLE/<path>".
	Shell string `json:"shell,omitempty"`
	// Files are the files the step uses, by their path in the bundle.
	Files map[string]string `json:"files,omitempty"`
	// Images are images the step provided to the cluster (preloaded by the script).
	Images []string `json:"images,omitempty"`
	// Note says what the script does differently from the suite, if anything.
	Note    string        `json:"note,omitempty"`
	Check   *Check        `json:"check,omitempty"`
	Timeout time.Duration `json:"timeout,omitempty"`
	Hold    time.Duration `json:"hold,omitempty"`
	// Seen is what the suite's look saw when the step ended: the evidence.
	Seen string `json:"seen,omitempty"`
	// Result is how the step ended in the cell ("held", "timed out: ...").
	Result string `json:"result,omitempty"`
	Want   bool   `json:"want,omitempty"`
	// Taken says whether the cell took the branch.
	Taken bool   `json:"taken,omitempty"`
	Steps []Step `json:"steps,omitempty"`
}

// Check is a look at the cluster in bash: Shell is a condition that exits
// 0 when the suite's check holds. An empty Shell is a look plain kubectl
// cannot take (the suite's own timeline): the script says so.
type Check struct {
	Shell string            `json:"shell,omitempty"`
	Files map[string]string `json:"files,omitempty"`
}

// Generated is a value the cell made at run time that the bundle must not
// hold (a key, a credential, a CA it signed with): the script makes its own
// with Shell, a bash command printing it.
type Generated struct {
	Var   string `json:"var"`
	Shell string `json:"shell"`
	value string
}

// Log is a cell's record.
type Log struct {
	mu        sync.Mutex
	Steps     []Step      `json:"steps"`
	Generated []Generated `json:"generated,omitempty"`
	dirs      map[string]int
}

type logKey struct{}

// recorder is where steps go: the log's top level, or a branch being recorded.
type recorder struct {
	log      *Log
	into     *[]Step
	planning bool // a branch the cell did not take: record, do nothing
}

// WithLog starts a cell's record.
func WithLog(ctx context.Context) (context.Context, *Log) {
	l := &Log{dirs: map[string]int{}}
	return context.WithValue(ctx, logKey{}, &recorder{log: l, into: &l.Steps}), l
}

func from(ctx context.Context) *recorder {
	r, _ := ctx.Value(logKey{}).(*recorder)
	return r
}

// Record adds a step and reports whether to carry it out: false while a
// branch the cell did not take is written down (see InBranch). Outside a cell
// it records nothing and says yes.
func Record(ctx context.Context, s Step) bool {
	r := from(ctx)
	if r == nil {
		return true
	}
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.redactStep(&s)
	*r.into = append(*r.into, s)
	return !r.planning
}

// Planning reports whether steps are only being written down.
func Planning(ctx context.Context) bool {
	r := from(ctx)
	return r != nil && r.planning
}

// Ended sets the outcome of the last step recorded at ctx's level (what the
// suite saw when a wait or verdict ended).
func Ended(ctx context.Context, seen, result string) {
	r := from(ctx)
	if r == nil || r.planning {
		return
	}
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	if n := len(*r.into); n > 0 {
		s := &(*r.into)[n-1]
		s.Seen, s.Result = r.log.redact(seen), r.log.redact(result)
	}
}

// InBranch records a step that runs its steps only when check is want, and
// returns the context to record them in and the function that ends the
// branch. A branch the cell did not take is still written down (its steps
// record without acting), so the script can take it when its cluster does.
func InBranch(ctx context.Context, what string, check *Check, want, taken bool) (context.Context, func()) {
	r := from(ctx)
	if r == nil {
		return ctx, func() {}
	}
	var steps []Step
	inner := &recorder{log: r.log, into: &steps, planning: r.planning || !taken}
	return context.WithValue(ctx, logKey{}, inner), func() {
		Record(ctx, Step{Kind: Branch, What: what, Check: check, Want: want, Taken: taken, Steps: steps})
	}
}

// Dir is a new directory of the bundle for one step's files, named for
// what (repos/<repo>, then repos/<repo>.2 for its second push ...).
func Dir(ctx context.Context, base string) string {
	r := from(ctx)
	if r == nil {
		return base
	}
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	r.log.dirs[base]++
	if n := r.log.dirs[base]; n > 1 {
		return fmt.Sprintf("%s.%d", base, n)
	}
	return base
}

// Generate marks value, made at run time, as one the bundle must not hold:
// wherever it (or its base64) would be recorded, the record holds a
// variable the script sets with shell. It returns the variable's name.
func Generate(ctx context.Context, value, shell string) string {
	r := from(ctx)
	if r == nil || value == "" {
		return ""
	}
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	for _, g := range r.log.Generated {
		if g.value == value {
			return g.Var
		}
	}
	g := Generated{Var: fmt.Sprintf("REPRO_GENERATED_%d", len(r.log.Generated)+1), Shell: shell, value: value}
	r.log.Generated = append(r.log.Generated, g)
	return g.Var
}

// redact replaces every generated value, as is and in base64, with its variable.
func (l *Log) redact(s string) string {
	for _, g := range l.Generated {
		s = strings.ReplaceAll(s, g.value, "${"+g.Var+"}")
		s = strings.ReplaceAll(s, base64.StdEncoding.EncodeToString([]byte(g.value)), "${"+g.Var+"_B64}")
		if t := strings.TrimSpace(g.value); t != g.value {
			s = strings.ReplaceAll(s, t, "${"+g.Var+"}")
		}
	}
	return s
}

func (l *Log) redactStep(s *Step) {
	s.Shell, s.Seen, s.Result, s.What = l.redact(s.Shell), l.redact(s.Seen), l.redact(s.Result), l.redact(s.What)
	for p, content := range s.Files {
		s.Files[p] = l.redact(content)
	}
	if s.Check != nil {
		s.Check.Shell = l.redact(s.Check.Shell)
		for p, content := range s.Check.Files {
			s.Check.Files[p] = l.redact(content)
		}
	}
}

// Save writes the record as JSON (generated values only by name).
func (l *Log) Save(path string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// Load reads a record Save wrote.
func Load(path string) (*Log, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := &Log{dirs: map[string]int{}}
	if err := json.Unmarshal(data, l); err != nil {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	return l, nil
}

// Redacted reports whether s, recorded, would hold no private key: every
// one in it is a generated value (Generate).
func Redacted(ctx context.Context, s string) bool {
	if r := from(ctx); r != nil {
		r.log.mu.Lock()
		s = r.log.redact(s)
		r.log.mu.Unlock()
	}
	return !privateKey.MatchString(s)
}

// RedactValues is a copy of Helm values with every generated value in its
// strings replaced by its variable: a multi-line one (a PEM) is a block in
// YAML, indented, where Record's redaction of the rendered text misses it.
func RedactValues(ctx context.Context, values map[string]any) map[string]any {
	r := from(ctx)
	if r == nil {
		return values
	}
	r.log.mu.Lock()
	defer r.log.mu.Unlock()
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case string:
			return r.log.redact(t)
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, e := range t {
				out[k] = walk(e)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, e := range t {
				out[i] = walk(e)
			}
			return out
		}
		return v
	}
	return walk(values).(map[string]any)
}
