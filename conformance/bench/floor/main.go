//go:build wasip1

// Command floor is the smallest Go WASI reactor: the Go runtime and one
// export. bench-targets.sh builds it with the flags of dist/toolerr.wasm and
// reports toolerr.wasm's size beside it.
package main

func main() {}

//go:wasmexport floor_version
func version() int32 { return 1 }
