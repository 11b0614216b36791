package repro

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"strings"
)

// The looks of pkg/check in bash. Each is a condition over the helpers the
// script defines (see header in script.go): exit 0 when the check holds.

// Quote is s as one bash word.
func Quote(s string) string {
	if s != "" && regexp.MustCompile(`^[A-Za-z0-9_./:=,@%+-]+$`).MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func words(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}

// Exists: the object exists.
func Exists(kind, namespace, name string) *Check {
	return &Check{Shell: "exists " + words(kind, namespace, name)}
}

// Missing: the API server says the object does not exist.
func Missing(kind, namespace, name string) *Check {
	return &Check{Shell: "missing " + words(kind, namespace, name)}
}

// NoneLeft: nothing of kind in namespace matches the label selector.
func NoneLeft(kind, namespace, selector string) *Check {
	return &Check{Shell: "none_left " + words(kind, namespace, selector)}
}

// UpToDate: `kubectl rollout status --watch=false` says the
// workload (kind.group) successfully rolled out.
func UpToDate(kind, namespace, name string) *Check {
	return &Check{Shell: "up_to_date " + words(kind, namespace, name)}
}

// JSONPathIs: kubectl's jsonpath output over the object is want.
func JSONPathIs(kind, namespace, name, jsonpath, want string) *Check {
	return &Check{Shell: "jsonpath_is " + words(kind, namespace, name, jsonpath, want)}
}

// JSONPathMatches: kubectl's jsonpath output over the object matches the
// regular expression re (grep -E; the suite's are RE2, the same for these).
func JSONPathMatches(kind, namespace, name, jsonpath, re string) *Check {
	return &Check{Shell: "jsonpath_matches " + words(kind, namespace, name, jsonpath, re)}
}

// probeFile is where a manifest a check dry-runs goes in the bundle.
func probeFile(manifest string) string {
	sum := sha256.Sum256([]byte(manifest))
	return fmt.Sprintf("probes/%x.yaml", sum[:6])
}

// Accepted: the API server admits the manifest (server-side dry run).
func Accepted(manifest string) *Check {
	f := probeFile(manifest)
	return &Check{Shell: "admitted " + Quote(f), Files: map[string]string{f: manifest}}
}

// Rejected: the API server rejects the manifest with a message holding substr.
func Rejected(manifest, substr string) *Check {
	f := probeFile(manifest)
	return &Check{Shell: "rejected " + words(f, substr), Files: map[string]string{f: manifest}}
}

// Endpoints: the Service has n endpoints whose condition cond (ready, serving) is true.
func Endpoints(namespace, service, cond string, n int) *Check {
	return &Check{Shell: fmt.Sprintf("endpoints_are %s %d", words(namespace, service, cond), n)}
}

// EventSeen: an event in namespace about a kind has reason and a message holding substr.
func EventSeen(namespace, kind, reason, substr string) *Check {
	return &Check{Shell: "event_seen " + words(namespace, kind, reason, substr)}
}

// EventMatches: an event in namespace about a kind has reason, and its
// "object: message" line matches the regular expression re (grep -E).
func EventMatches(namespace, kind, reason, re string) *Check {
	return &Check{Shell: "event_matches " + words(namespace, kind, reason, re)}
}

// RolledOut: every Deployment in namespace has all its replicas available.
func RolledOut(namespace string) *Check {
	return &Check{Shell: "rolled_out " + Quote(namespace)}
}

// FinalizerPending: the object is being deleted and still has finalizer.
func FinalizerPending(kind, namespace, name, finalizer string) *Check {
	return &Check{Shell: "finalizer_pending " + words(kind, namespace, name, finalizer)}
}

// ServiceAnswers: a GET through the API server's service proxy returns a body holding want.
func ServiceAnswers(namespace, service, port, path, want string) *Check {
	return &Check{Shell: "service_answers " + words(namespace, service, port, path, want)}
}

// RawAnswers: a GET of an API path (`kubectl get --raw PATH`) returns a
// body holding want.
func RawAnswers(path, want string) *Check {
	return &Check{Shell: "raw_answers " + words(path, want)}
}

// ApplicationField: a field of an Application (jsonpath) is want.
func ApplicationField(name, jsonpath, want string) *Check {
	return JSONPathIs("applications.argoproj.io", "argocd", name, jsonpath, want)
}

// OperationPhaseIs: the Application's operation is in phase; a finished
// phase only once no new operation is requested (as the suite's check).
func OperationPhaseIs(name, phase string) *Check {
	if phase == "Running" {
		return ApplicationField(name, "{.status.operationState.phase}", phase)
	}
	return ApplicationField(name, "{.status.operationState.phase}/{.operation.initiatedBy.username}", phase+"/")
}

// OperationMessageContains: the operation's message holds s.
func OperationMessageContains(name, s string) *Check {
	return JSONPathMatches("applications.argoproj.io", "argocd", name, "{.status.operationState.message}", regexp.QuoteMeta(s))
}

// Unscripted is a look plain kubectl cannot take.
func Unscripted() *Check { return &Check{} }

// All holds when every check holds; nil when one cannot be scripted.
func All(checks ...*Check) *Check { return combine(" && ", checks) }

// Any holds when one of the checks holds; nil when one cannot be scripted.
func Any(checks ...*Check) *Check { return combine(" || ", checks) }

// Not holds when c does not; nil when c cannot be scripted.
func Not(c *Check) *Check {
	if c == nil || c.Shell == "" {
		return Unscripted()
	}
	return &Check{Shell: "! " + c.Shell, Files: c.Files}
}

// combine joins checks with op; none is a check that holds for " && " (every
// one of none holds) and not for " || ".
func combine(op string, checks []*Check) *Check {
	if len(checks) == 0 {
		if op == " && " {
			return &Check{Shell: "true"}
		}
		return &Check{Shell: "false"}
	}
	out := &Check{Files: map[string]string{}}
	var parts []string
	for _, c := range checks {
		if c == nil || c.Shell == "" {
			return Unscripted()
		}
		parts = append(parts, c.Shell)
		for p, content := range c.Files {
			out.Files[p] = content
		}
	}
	if len(parts) == 1 {
		out.Shell = parts[0]
	} else {
		out.Shell = "{ " + strings.Join(parts, op) + "; }"
	}
	if len(out.Files) == 0 {
		out.Files = nil
	}
	return out
}
