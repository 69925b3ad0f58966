module github.com/toolerr/toolerr/gatewaycheck

go 1.26

replace (
	github.com/toolerr/toolerr => ../
	github.com/toolerr/toolerr/conformance => ../conformance
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.6
)

require (
	github.com/gowebpki/jcs v1.0.2
	github.com/toolerr/toolerr v0.0.0-00010101000000-000000000000
	github.com/toolerr/toolerr/conformance v0.0.0-00010101000000-000000000000
	golang.org/x/text v0.14.0
)
