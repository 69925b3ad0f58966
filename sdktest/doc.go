// Package sdktest holds the tests of toolerr's egress with the official Go
// provider SDKs (openai-go, anthropic-sdk-go, google.golang.org/genai), in a
// module of its own so that the root module does not require them.
package sdktest
