// Package gateway holds the gateway-check fixtures (*.json, validated by
// ../gateway.schema.json) as an embedded file system, so that
// toolerr-gateway-check carries them wherever it is installed.
package gateway

import "embed"

// Files holds every fixture file of this directory, at its root
// (envelope.json, errors.json, ...). It is read-only.
//
//go:embed *.json
var Files embed.FS
