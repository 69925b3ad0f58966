package core

// argsOps returns the handler of an argument-check op, or nil.
// Owned by the argument-validation work (issue 2, item 3, last bullet).
func argsOps(op string) handler {
	switch op {
	}
	return nil
}
