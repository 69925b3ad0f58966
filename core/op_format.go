package core

// formatOps returns the handler of a wire-format op, or nil.
// Owned by the wire-format work (issue 2, item 5).
func formatOps(op string) handler {
	switch op {
	}
	return nil
}
