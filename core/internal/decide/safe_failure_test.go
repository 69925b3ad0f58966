package decide

import (
	"testing"

	"github.com/toolerr/toolerr/core/internal/canonical"
)

// Both readers of the step op (the scanner of the common request, the
// general reader of any other) give a failure event's error member, the
// runtime's own envelope, sanitized (SafeFailure); the classify member's
// envelope is classify's, sanitized already.
func TestReaders_sanitizeTheFailuresErrorMember(t *testing.T) {
	const event = `{"kind":"failure","error":{"code":"TOOL_ERROR","message":"failed with sk-proj-AbCdEf0123456789AbCdEf0123456789xyz",` +
		`"retryable":false,"details":{"k":"token sk-proj-AbCdEf0123456789AbCdEf0123456789xyz"},"source":"tool"},"draw":0.5}`
	check := func(reader string, e StepEvent) {
		t.Helper()
		if e.Error == nil || e.Error.Message != "failed with [REDACTED]." || e.Error.Details["k"] != "token [REDACTED]" {
			t.Errorf("%s: event.error = %+v", reader, e.Error)
		}
	}
	in, ok := ScanStepRequest(`{"op":"step","tool":"search","state":{"attempt":1,"phase":"call"},"event":` + event + `,"now_ms":1700000000000}`)
	if !ok {
		t.Fatal("the scanner refused the request")
	}
	check("scanner", in.Event)
	v, err := canonical.Parse([]byte(event))
	if err != nil {
		t.Fatal(err)
	}
	e, err := ReadStepEvent(v, "event")
	if err != nil {
		t.Fatal(err)
	}
	check("general reader", e)
}
