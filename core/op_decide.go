package core

// decideOps returns the handler of a decision op (retry, breaker, budget), or nil (issue 6).
func decideOps(op string) handler {
	switch op {
	}
	return nil
}
