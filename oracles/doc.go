// Package oracles checks toolerr's wire output against the vendors' own
// definitions: the official Go SDKs build the same tool result and the two
// JSON values must be equal, and the published schemas in ../shared/specs/
// must accept our output. It is a module of its own so that the SDKs never
// become dependencies of toolerr itself.
package oracles
