package text

import "testing"

func TestClipAndOrNone(t *testing.T) {
	if got := Clip("abcdef", 3); got != "abc..." {
		t.Errorf("Clip = %q", got)
	}
	if got := Clip("abc", 3); got != "abc" {
		t.Errorf("Clip of a short one = %q", got)
	}
	if OrNone("") != "none" || OrNone("x") != "x" {
		t.Errorf("OrNone: %q %q", OrNone(""), OrNone("x"))
	}
}
