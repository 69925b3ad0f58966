package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolerr/toolerr/core/internal/envelope"
)

func TestStatusRule_lists(t *testing.T) {
	tests := []struct {
		status    int
		code      envelope.Code
		retryable bool
		listed    bool
	}{
		// retryable list
		{408, envelope.Timeout, true, true},
		{409, envelope.Conflict, true, true},
		{429, envelope.RateLimited, true, true},
		{500, envelope.ServerError, true, true},
		{502, envelope.Transport, true, true},
		{503, envelope.Transport, true, true},
		{504, envelope.Timeout, true, true},
		{529, envelope.Overloaded, true, true},
		// terminal list
		{400, envelope.InvalidRequest, false, true},
		{401, envelope.Authentication, false, true},
		{402, envelope.QuotaExhausted, false, true},
		{403, envelope.PermissionDenied, false, true},
		{404, envelope.NotFound, false, true},
		{413, envelope.RequestTooLarge, false, true},
		{422, envelope.InvalidRequest, false, true},
		// vendor rows
		{498, envelope.Authentication, false, true},
		{499, envelope.Cancelled, false, true},
		{501, envelope.Unsupported, false, true},
		// defaults
		{405, envelope.ClientError, false, false},
		{418, envelope.ClientError, false, false},
		{424, envelope.ClientError, false, false},
		{451, envelope.ClientError, false, false},
		{505, envelope.ServerError, true, false},
		{520, envelope.ServerError, true, false},
		{599, envelope.ServerError, true, false},
		{100, envelope.UnexpectedStatus, false, false},
		{200, envelope.UnexpectedStatus, false, false},
		{204, envelope.UnexpectedStatus, false, false},
		{302, envelope.UnexpectedStatus, false, false},
		{0, envelope.UnexpectedStatus, false, false},
		{600, envelope.UnexpectedStatus, false, false},
		{-1, envelope.UnexpectedStatus, false, false},
	}
	for _, tc := range tests {
		r, listed := StatusRule(tc.status)
		assert.Equal(t, tc.code, r.Code, "status %d", tc.status)
		assert.Equal(t, tc.retryable, r.Retryable, "status %d", tc.status)
		assert.Equal(t, tc.listed, listed, "status %d", tc.status)
	}
}

func TestHTTP_everyStatusHasARegisteredCode(t *testing.T) {
	for s := 100; s <= 599; s++ {
		e := HTTP(s, nil, nil, Options{})
		info, ok := envelope.Lookup(e.Code)
		assert.True(t, ok, "status %d gives unregistered %s", s, e.Code)
		assert.Equal(t, info.Retryable, e.Retryable, "status %d: retryable differs from the registry default of %s", s, e.Code)
		assert.Equal(t, s, e.Details["status"])
	}
}
