package images

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Mode says where images come from.
type Mode string

const (
	// Online pulls the upstream images.
	Online Mode = "online"
	// Offline builds every image from pinned sources.
	Offline Mode = "offline"
	// Auto detects the mode by probing the registries.
	Auto Mode = "auto"
)

// Registries are probed to detect the mode: every one must answer.
var Registries = []string{"https://registry.k8s.io/v2/", "https://quay.io/v2/", "https://registry-1.docker.io/v2/"}

// Probe asks one registry; any HTTP answer (401 included) counts as reachable.
type Probe func(ctx context.Context, url string) error

// ParseMode validates a mode name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Online, Offline, Auto:
		return m, nil
	case "":
		return Auto, nil
	}
	return "", fmt.Errorf("mode %q is not one of auto, online, offline", s)
}

// Detect resolves Auto: online only when every registry answers.
func Detect(ctx context.Context, forced Mode, probe Probe) (Mode, string) {
	if forced == Online || forced == Offline {
		return forced, "forced"
	}
	for _, r := range Registries {
		if err := probe(ctx, r); err != nil {
			return Offline, fmt.Sprintf("%s unreachable: %v", r, err)
		}
	}
	return Online, "all registries answered"
}

// HTTPProbe is the real Probe, with a short timeout.
func HTTPProbe(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
