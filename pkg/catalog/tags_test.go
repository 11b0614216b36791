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

func TestReleaseCompareOrdersByNumberAndCandidatesFirst(t *testing.T) {
	c, _ := Load()
	rels, err := c.Releases([]string{"v3.1.4", "v3.1.0", "v2.14.21", "v3.1.0-rc2", "v2.14.3", "v3.1.0-rc10", "v2.13.3"})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(rels, Release.Compare)
	var got []string
	for _, r := range rels {
		got = append(got, r.String())
	}
	want := []string{"v2.13.3", "v2.14.3", "v2.14.21", "v3.1.0-rc2", "v3.1.0-rc10", "v3.1.0", "v3.1.4"}
	if !slices.Equal(got, want) {
		t.Fatalf("sorted = %v, want %v", got, want)
	}
}
