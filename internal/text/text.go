package text

import "cmp"

// OrNone is s, or "none" for "".
func OrNone(s string) string { return cmp.Or(s, "none") }

// Clip is s, at most n bytes of it and "..." when cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
