module github.com/toolerr/toolerr/bench

go 1.26.0

replace (
	github.com/toolerr/toolerr => ../
	github.com/toolerr/toolerr/conformance => ../conformance
	github.com/toolerr/toolerr/gateway => ../gateway
	github.com/toolerr/toolerr/gatewaycheck => ../gatewaycheck
)

require (
	github.com/toolerr/toolerr v0.0.0-00010101000000-000000000000
	github.com/toolerr/toolerr/gateway v0.0.0-00010101000000-000000000000
	github.com/toolerr/toolerr/gatewaycheck v0.0.0-00010101000000-000000000000
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_golang v1.25.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
