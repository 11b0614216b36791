package appstate

import (
	"maps"
	"slices"
	"strings"
)

// Fields are the fields an Application's status holds, as paths from
// status (status.resources[].health.status): the items of a list as one,
// a map's keys each a field. What a tool reading the CR finds there.
func Fields(status map[string]any) []string {
	set := map[string]bool{}
	fields("status", status, set)
	return slices.Sorted(maps.Keys(set))
}

func fields(path string, v any, set map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			set[path] = true
		}
		for k, item := range v {
			fields(path+"."+k, item, set)
		}
	case []any:
		if len(v) == 0 {
			set[path+"[]"] = true
		}
		for _, item := range v {
			fields(path+"[]", item, set)
		}
	default:
		set[path] = true
	}
}

// Gone are the fields of from that to lacks, but for those that come and
// go with what happened rather than with the release: conditions, and
// messages (ArgoCD leaves an empty one out). An empty object or list on
// from that to fills is not gone (3.5's status.summary of an app-of-apps
// parent: {} on v3.4.7, {isAppOfApps: true} on v3.5.1, run 20261129-043951).
func Gone(from, to []string) []string {
	var out []string
	filled := func(f string) bool {
		return slices.ContainsFunc(to, func(t string) bool { return strings.HasPrefix(t, f+".") || strings.HasPrefix(t, f+"[]") })
	}
	for _, f := range from {
		if slices.Contains(to, f) || filled(f) || strings.HasPrefix(f, "status.conditions") || strings.HasSuffix(f, ".message") {
			continue
		}
		out = append(out, f)
	}
	return out
}
