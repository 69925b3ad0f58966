module github.com/toolerr/toolerr/conformance

go 1.26

replace github.com/toolerr/toolerr => ../

require (
	github.com/bytecodealliance/wasmtime-go/v39 v39.0.1
	github.com/gowebpki/jcs v1.0.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	github.com/tetratelabs/wazero v1.12.0
	github.com/toolerr/toolerr v0.0.0-00010101000000-000000000000
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.44.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
