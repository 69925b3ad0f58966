//go:build race

package conformance

// raceEnabled: the tests run under the race detector (go test -race).
const raceEnabled = true
