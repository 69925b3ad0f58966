package classify

import "testing"

// TestCauseValue_boxesNoString holds details.cause to its constant: every
// transport cause comes back equal and boxing it allocates nothing.
func TestCauseValue_boxesNoString(t *testing.T) {
	for _, c := range []string{CauseTimeout, CauseCancelled, CauseConnectionRefused, CauseConnectionReset,
		CauseDNS, CauseTLS, CauseTLSCertificate, CauseNetwork} {
		cause := string([]byte(c)) // not the constant's own bytes
		var v any
		if n := testing.AllocsPerRun(100, func() { v = causeValue(cause) }); n != 0 {
			t.Errorf("causeValue(%q) allocates %v times", c, n)
		}
		if v != any(c) {
			t.Errorf("causeValue(%q) = %v", c, v)
		}
	}
}
