package core

// transcriptOps returns the handler of a transcript op, or nil (issue 4).
func transcriptOps(op string) handler {
	switch op {
	}
	return nil
}
