// Command toolerr-gateway-check holds any LLM gateway to the five fields:
// strict fake upstreams on loopback, the conformance/gateway fixtures sent
// through the gateway, a carried / lost / rejected matrix, exit 1 on lost.
// See package gatewaycheck and docs/gateway-check.md.
package main

import (
	"os"

	"github.com/toolerr/toolerr/gatewaycheck"
)

func main() { os.Exit(gatewaycheck.Main(os.Args[1:], os.Stdout, os.Stderr)) }
