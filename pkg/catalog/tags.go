package catalog

import (
	"fmt"
	"strings"
)

// CompareTags orders release tags by version number (v2.14.3 before v2.14.21),
// for the matrix's ArgoCD axis and the report's columns alike.
func CompareTags(a, b string) int {
	pa, pb := TagNumbers(a), TagNumbers(b)
	for i := range 3 {
		if pa[i] != pb[i] {
			return pa[i] - pb[i]
		}
	}
	return strings.Compare(a, b)
}

// TagNumbers are a release tag's major, minor and patch numbers; what does not
// parse (a suffix, a missing part) counts as 0.
func TagNumbers(tag string) [3]int {
	var n [3]int
	_, _ = fmt.Sscanf(strings.TrimPrefix(tag, "v"), "%d.%d.%d", &n[0], &n[1], &n[2])
	return n
}
