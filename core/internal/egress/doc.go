// Package egress holds the rules of the last hop before a model provider:
// what a client gets for an upstream failure (Error: the status kept, the
// provider family's native error shape, standard wait headers and the
// toolerr envelope beside them) and, for a request on its way out, the body
// to send.
//
// It decides nothing about the failure itself: classification is package
// classify's, transcript repair package transcript's. What it owns is the
// native shape of each client family and where the five fields ride inside
// it, so that every SDK's own exception classes still fire (openai-python
// RateLimitError, anthropic OverloadedError for 529, google-genai
// errors.APIError with the Google status, botocore ClientError with the
// exception name) and a client can read the envelope too.
package egress
