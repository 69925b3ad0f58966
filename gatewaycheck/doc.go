// Package gatewaycheck holds any LLM gateway to the five fields: it starts
// strict fake upstreams on loopback (package fake), sends the fixture
// requests of conformance/gateway through the gateway under test, and
// grades each one carried, lost or rejected.
//
// A test is one client request in an ingress format (openai-chat,
// openai-responses, anthropic, gemini, bedrock) routed, through the model
// name gwcheck-<upstream>, to one upstream family. It checks what arrives
// there (every failure flag and the five envelope fields byte-equal after
// RFC 8785 canonicalization, missing results answered with a flagged
// failure, orphans dropped, ids valid and distinct, Gemini names and one
// content) or what comes back from a scripted upstream error (the status
// kept, a standard retry-after at least the upstream's hint, toolerr's
// classification through the gateway equal to direct, no more upstream hits
// than the client asked for).
//
// The fakes validate with their own rules and the vendors' published
// schemas, never with toolerr's check or repair, so a gateway built on
// toolerr is not graded by itself. The command is cmd/toolerr-gateway-check.
package gatewaycheck
