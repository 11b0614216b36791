package catalog

import (
	"slices"
	"testing"
)

func TestCompareTagsOrdersByNumber(t *testing.T) {
	tags := []string{"v3.1.4", "v2.14.21", "v2.14.3", "v2.13.3", "v3.0.12"}
	slices.SortFunc(tags, CompareTags)
	want := []string{"v2.13.3", "v2.14.3", "v2.14.21", "v3.0.12", "v3.1.4"}
	if !slices.Equal(tags, want) {
		t.Fatalf("sorted = %v, want %v", tags, want)
	}
}
