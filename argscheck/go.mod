module github.com/toolerr/toolerr/argscheck

go 1.26

replace github.com/toolerr/toolerr => ../

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	github.com/toolerr/toolerr v0.0.0-00010101000000-000000000000
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/text v0.14.0 // indirect
)
