// Package openairesponses is a wire-format codec. STUB: replaced by the wire-format work.
package openairesponses

import (
	"errors"

	"github.com/toolerr/toolerr/core/internal/format/outcome"
)

// Codec is the openairesponses codec.
type Codec struct{}

var errTodo = errors.New("format not implemented yet")

// Serialize is not implemented yet.
func (Codec) Serialize(outs []outcome.Outcome) ([]any, error) { return nil, errTodo }

// Parse is not implemented yet.
func (Codec) Parse(msgs []any) ([]outcome.Outcome, error) { return nil, errTodo }
