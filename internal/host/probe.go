package host

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// probeText is a megabyte of Go-like text, the same on every machine.
var probeText = func() []byte {
	r := rand.New(rand.NewSource(1))
	words := []string{"func", "return", "if", "err", "nil", "package", "import", "struct", "string", "int", "for", "range", "map", "go", "defer"}
	var b bytes.Buffer
	for b.Len() < 1<<20 {
		b.WriteString(words[r.Intn(len(words))])
		b.WriteByte(" \n\t("[r.Intn(4)])
	}
	return b.Bytes()
}()

// probeWork is one core's share of the probe: the text compressed, hashed,
// cut into a map and sorted, sixteen times: the kinds of work a Go build does
// (allocation, hashing, branches over bytes), in about 0.37 s on
// the suite's 2-core machine when it is idle.
func probeWork() {
	var out bytes.Buffer
	for range 16 {
		out.Reset()
		w, _ := flate.NewWriter(&out, 6)
		_, _ = w.Write(probeText)
		_ = w.Close()
		sha256.Sum256(out.Bytes())
		seen := map[string]int{}
		for i := 0; i+8 < len(probeText); i += 97 {
			seen[string(probeText[i:i+8])]++
		}
		keys := make([]string, 0, len(seen))
		for k := range seen {
			keys = append(keys, k)
		}
		slices.Sort(keys)
	}
}

// Probe times a fixed piece of CPU work run on every core at once, the
// median of three rounds: how fast this machine builds now, its cores and
// its load included. The plan prices a build this machine never measured
// by the figure of the machine it was measured on, scaled by the two
// machines' probes (runner.Forecast): builds are CPU-bound here (vmstat
// during the node image: 77-81% user, no I/O wait, run 20261129-005928),
// and the same builds took 2.56 to 2.58 times as long on 2026-11-29's
// machine as on 2026-11-27's.
func Probe() time.Duration {
	rounds := make([]time.Duration, 3)
	for i := range rounds {
		start := time.Now()
		var wg sync.WaitGroup
		for range runtime.NumCPU() {
			wg.Go(probeWork)
		}
		wg.Wait()
		rounds[i] = time.Since(start)
	}
	slices.Sort(rounds)
	return rounds[len(rounds)/2]
}

// loadFields are the fields of /proc/loadavg (none where the system does
// not say): the load averages over 1, 5 and 15 minutes first.
func loadFields() []string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Fields(string(b))
}

// Load is the load average over the last minute; ok is false where the
// system does not say.
func Load() (load float64, ok bool) {
	f := loadFields()
	if len(f) == 0 {
		return 0, false
	}
	load, err := strconv.ParseFloat(f[0], 64)
	return load, err == nil
}

// LoadAverages are the load averages over 1, 5 and 15 minutes as the
// system writes them, for a benchmark's line ("?" where it does not say).
func LoadAverages() string {
	f := loadFields()
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
