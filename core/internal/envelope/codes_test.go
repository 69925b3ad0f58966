package envelope

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRegistered_agreesWithCodes(t *testing.T) {
	for _, ci := range Codes() {
		assert.True(t, Registered(ci.Code), ci.Code)
		_, ok := Lookup(ci.Code)
		assert.True(t, ok, ci.Code)
	}
	for _, c := range []Code{"", "PWNED", "DISK_FULL", "timeout", "TIMEOUT ", "RATE_LIMITED_"} {
		assert.False(t, Registered(c), c)
		_, ok := Lookup(c)
		assert.False(t, ok, c)
	}
}
