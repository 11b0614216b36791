package runner

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gitops-conformance/suite/internal/images"
)

// REGISTRY_MIRROR is bad input (one line, exit 2, nothing started) when it
// is malformed, unreachable, or named for an offline run.
func TestMirrorIsCheckedBeforeAnythingStarts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	if m, err := Mirror(ctx, "", images.Online); m != nil || err != nil {
		t.Errorf("no mirror: %v, %v", m, err)
	}
	if m, err := Mirror(ctx, host, images.Auto); err != nil || m == nil || m.Host != host {
		t.Errorf("answering mirror: %v, %v", m, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for in, want := range map[string]string{
		"mirror.corp":   "want host:port",
		"ftp://" + host: "scheme ftp",
		closed:          "unreachable",
	} {
		if _, err := Mirror(ctx, in, images.Online); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Mirror(%q) = %v; want one line saying %q", in, err, want)
		}
	}
	if _, err := Mirror(ctx, host, images.Offline); err == nil || !strings.Contains(err.Error(), "MODE=online") {
		t.Errorf("offline with a mirror = %v", err)
	}
}

func TestDeliverIsLoadOrRegistry(t *testing.T) {
	for _, o := range []Options{{Mode: "offline", Deliver: "scp", Repeat: 1}, {Mode: "auto", Deliver: "registry", RegistryMirror: "m:5000", Repeat: 1}, {Mode: "online", Deliver: "registry", Repeat: 1}} {
		if _, err := Validate(context.Background(), nil, nil, o); !IsBadInput(err) {
			t.Errorf("Validate(%+v) = %v, want bad input", o, err)
		}
	}
}
