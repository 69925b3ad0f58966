// Package conformance runs toolerr's language-neutral fixtures
// (fixtures/<op>/<topic>.json) through every build target: core.Invoke
// natively, dist/toolerr.wasm under wazero and wasmtime-go, dist/libtoolerr.so
// loaded with dlopen, and any external command (a binding's fixture runner),
// and checks that every target returns the same bytes as the fixture's
// canonical response. See README.md for the runner's steps.
package conformance
