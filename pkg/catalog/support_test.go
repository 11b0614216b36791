package catalog

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// listing is a fixed module proxy listing.
type listing map[string][]string

func (l listing) Versions(_ context.Context, module string) ([]string, error) {
	v, ok := l[module]
	if !ok {
		return nil, errors.New("403 Forbidden")
	}
	return v, nil
}

func TestSupportIsTheThreeNewestMinorLinesListed(t *testing.T) {
	c, _ := Load()
	// what the module proxy listed on 2026-11-24 (argo-cd/v3 in full, v2 in part)
	l := listing{
		"github.com/argoproj/argo-cd/v2": {"v2.8.0", "v2.12.3", "v2.13.3", "v2.14.11", "v2.14.21"},
		"github.com/argoproj/argo-cd/v3": {"v3.0.0", "v3.1.16", "v3.2.12", "v3.3.0", "v3.3.19", "v3.4.0", "v3.4.7", "v3.4.13",
			"v3.5.0", "v3.5.1", "v3.5.7", "v3.6.0-rc2", "v3.6.0", "v3.6.1", "v3.7.0-rc1"},
	}
	s := c.Support(context.Background(), l)
	if got := s.String(); got != "3.6 (newest v3.6.1), 3.5 (newest v3.5.7), 3.4 (newest v3.4.13)" {
		t.Fatalf("Support = %q", got)
	}
	for tag, want := range map[string]string{"v3.4.7": Supported, "v3.5.1": Supported, "v3.6.0-rc2": Supported,
		"v3.3.19": EndOfLife, "v2.14.21": EndOfLife, "v2.13.3": EndOfLife, "v3.7.0-rc1": EndOfLife} {
		if got := s.Of(MustRelease(tag)); got != want {
			t.Errorf("%s: %s, want %s", tag, got, want)
		}
	}
	if line, ok := s.Line(MustRelease("v3.4.7")); !ok || line.Newest != "v3.4.13" {
		t.Errorf("v3.4.7's line: %+v %v", line, ok)
	}
	// a listing that fails is no answer: never a guess from the others
	delete(l, "github.com/argoproj/argo-cd/v3")
	s = c.Support(context.Background(), l)
	if s.Of(MustRelease("v2.14.21")) != CouldNotTell || !strings.Contains(s.String(), "argo-cd/v3") || !strings.Contains(s.String(), "403") {
		t.Errorf("a failed listing must say it could not tell, and why: %q", s)
	}
	// fewer lines than upstream supports: all of them
	s = c.Support(context.Background(), listing{"github.com/argoproj/argo-cd/v2": {"v2.14.0"}, "github.com/argoproj/argo-cd/v3": {"v3.0.0-rc1"}})
	if len(s.Lines) != 1 || s.Of(MustRelease("v2.14.21")) != Supported {
		t.Errorf("one line listed: %+v", s)
	}
	if s := c.Support(context.Background(), listing{"github.com/argoproj/argo-cd/v2": nil, "github.com/argoproj/argo-cd/v3": nil}); s.Of(MustRelease("v3.5.1")) != CouldNotTell {
		t.Errorf("an empty listing: %+v", s)
	}
}
