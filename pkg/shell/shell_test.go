package shell

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestCmdString(t *testing.T) {
	c := Cmd{Name: "docker", Args: []string{"run", "--name", "a b", "it's"}, Env: []string{"X=1"}, Dir: "/tmp"}
	want := `cd /tmp && X=1 docker run --name 'a b' 'it'\''s'`
	if got := c.String(); got != want {
		t.Fatalf("String() = %s, want %s", got, want)
	}
}

func TestRunErrorIsPasteable(t *testing.T) {
	_, err := Run(context.Background(), Cmd{Name: "sh", Args: []string{"-c", "echo boom; exit 3"}})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want *Error, got %v", err)
	}
	if !strings.HasPrefix(err.Error(), "sh -c 'echo boom; exit 3': exit status 3") || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("error = %q", err)
	}
}
