package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// gcFlags are the garbage collector's two settings (see
// https://go.dev/doc/gc-guide): -gc-percent is GOGC (the heap may grow by
// that percentage of what is live before a collection; "off" for none but
// the memory limit's), -memory-limit is GOMEMLIMIT (a soft limit on the
// memory the Go runtime uses, in bytes or with a KiB, MiB, GiB or TiB
// suffix; "off" for none). Unset, each is the environment variable's value
// when it is set, else Go's default (100, no limit): the runtime has
// already read the variables, so an unset flag changes nothing.
type gcFlags struct {
	percent, limit string
}

// gcSettings are the values apply gives the runtime: percent -1 for off,
// limit math.MaxInt64 for no limit.
type gcSettings struct {
	percent int
	limit   int64
}

// parse reads the flags (an empty flag: its variable's value, then Go's
// default).
func (f gcFlags) parse() (gcSettings, error) {
	s := gcSettings{percent: 100, limit: math.MaxInt64}
	p := f.percent
	if p == "" {
		p = os.Getenv("GOGC")
	}
	switch p {
	case "":
	case "off":
		s.percent = -1
	default:
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return s, fmt.Errorf("-gc-percent must be a percentage (0 or more) or off, got %q", p)
		}
		s.percent = n
	}
	l := f.limit
	if l == "" {
		l = os.Getenv("GOMEMLIMIT")
	}
	if l != "" && l != "off" {
		n, ok := parseBytes(l)
		if !ok {
			return s, fmt.Errorf("-memory-limit must be bytes, with a B, KiB, MiB, GiB or TiB suffix or none, or off, got %q", l)
		}
		s.limit = n
	}
	return s, nil
}

// apply sets s in the runtime and returns the settings it replaced.
func (s gcSettings) apply() gcSettings {
	return gcSettings{percent: debug.SetGCPercent(s.percent), limit: debug.SetMemoryLimit(s.limit)}
}

// parseBytes reads a size as GOMEMLIMIT writes one: a non-negative integer
// of bytes, with an optional B, KiB, MiB, GiB or TiB suffix (runtime
// package, "Environment Variables").
func parseBytes(v string) (int64, bool) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"B", 1}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}
