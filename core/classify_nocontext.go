//go:build toolerr_nocontext

package core

// contextCause, built with -tags toolerr_nocontext, knows no context error:
// core then does not import the context package, which imports time, whose
// package initialisation links GODEBUG parsing, internal/bisect and
// syscall's environment (about 230 KB of the wasm module, run at every
// instantiation). scripts/build-wasm.sh builds dist/toolerr.wasm so: its
// exports reach core only through Invoke, whose ops take no Go error, so
// nothing in the module calls ClassifyError or EgressTransportError
// (wasm/module_test.go checks it). A Go program built with the tag that does
// call them gets context.DeadlineExceeded as TIMEOUT still (its Timeout
// method says so) and context.Canceled classified by its text.
func contextCause([]error) (string, bool) { return "", false }
