package decide

import "github.com/toolerr/toolerr/core/internal/field"

// MaxNowMs is the largest now_ms the decisions take: 2^53 ms (about
// 285,000 years after the Unix epoch), the largest whole number a float64
// holds exactly, so JSON carries every accepted value exactly.
const MaxNowMs = maxMs

// CheckNowMs checks a clock reading as the ops and the typed Go API both
// take it: nowMs in [0, MaxNowMs], milliseconds since the Unix epoch (a
// *field.Error at "now_ms" otherwise).
func CheckNowMs(nowMs int64) error {
	return field.InRange("now_ms", nowMs, 0, MaxNowMs)
}

// checkInts checks whole numbers given in Go as readInts checks them given
// in JSON: each of ns, named by names under path, in [min, maxMs]. With
// zeroIsDefault a zero passes whatever min is (a Go zero value is a member
// left out of the JSON).
func checkInts(path string, min int64, zeroIsDefault bool, names []string, ns ...int64) error {
	for i, n := range ns {
		if n == 0 && zeroIsDefault {
			continue
		}
		if err := field.InRange(field.Join(path, names[i]), n, min, maxMs); err != nil {
			return err
		}
	}
	return nil
}
