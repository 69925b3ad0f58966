package main

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGCFlags_parse: each flag as GOGC and GOMEMLIMIT read their values,
// the environment variable when the flag is unset, Go's default when both
// are.
func TestGCFlags_parse(t *testing.T) {
	for _, tc := range []struct {
		name, percent, limit, envGOGC, envLimit string
		want                                    gcSettings
	}{
		{name: "defaults", want: gcSettings{100, math.MaxInt64}},
		{name: "flags", percent: "400", limit: "512MiB", want: gcSettings{400, 512 << 20}},
		{name: "off", percent: "off", limit: "off", envLimit: "1GiB", want: gcSettings{-1, math.MaxInt64}},
		{name: "environment", envGOGC: "200", envLimit: "3000000", want: gcSettings{200, 3000000}},
		{name: "flags over environment", percent: "50", limit: "2KiB", envGOGC: "200", envLimit: "1GiB", want: gcSettings{50, 2048}},
		{name: "suffixes", limit: "1TiB", want: gcSettings{100, 1 << 40}},
		{name: "bytes suffix", limit: "77B", want: gcSettings{100, 77}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.envGOGC)
			t.Setenv("GOMEMLIMIT", tc.envLimit)
			got, err := gcFlags{percent: tc.percent, limit: tc.limit}.parse()
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	for _, bad := range []gcFlags{{percent: "-5"}, {percent: "lots"}, {limit: "1GB"}, {limit: "-1MiB"}, {limit: "9999999TiB"}, {limit: "MiB"}} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		_, err := bad.parse()
		assert.Error(t, err, "%+v", bad)
	}
}

// TestRun_gcFlags: the command runs with the settings of its flags and
// puts the previous ones back when it returns; a bad value is a usage
// error (2).
func TestRun_gcFlags(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := gcSettings{debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)}
	debug.SetGCPercent(before.percent)
	_, stop, exit, _ := start(t, "-addr", "127.0.0.1:0", "-gc-percent", "300", "-memory-limit", "256MiB")
	assert.Equal(t, 300, debug.SetGCPercent(300))
	assert.Equal(t, int64(256<<20), debug.SetMemoryLimit(-1))
	stop()
	require.Equal(t, 0, <-exit)
	assert.Equal(t, before.percent, debug.SetGCPercent(before.percent))
	assert.Equal(t, before.limit, debug.SetMemoryLimit(-1))
	assert.Equal(t, 2, run(t.Context(), []string{"-gc-percent", "x"}, &nopWriter{}, &nopWriter{}, nil))
}

type nopWriter struct{}

func (*nopWriter) Write(p []byte) (int, error) { return len(p), nil }
