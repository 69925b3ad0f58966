// toolerr/egress: the core's egress ops as a fetch wrapper (docs/egress.md).
import type { Envelope, Format } from 'toolerr';

/** The provider API a request calls: `api` as the gateway names it, the wire `format`, a Gemini path's `model` ('' otherwise). */
export interface Endpoint {
  api: 'chat_completions' | 'responses' | 'messages' | 'count_tokens' | 'generate_content' | 'stream_generate_content';
  format: Format;
  model: string;
}

/** One error event inside a stream, as the client's stream now carries it: `event` ('' for a data-only event) and `data` (canonical JSON, the envelope under `toolerr`). */
export interface StreamError {
  endpoint: Endpoint;
  envelope: Envelope;
  event: string;
  data: string;
}

/** The egress_request op's report on one body (its `body` left out). */
export interface PrepareReport {
  changed: boolean;
  changes: Record<string, unknown>;
  id_map?: Record<string, string>;
  findings: unknown[];
}

export interface EgressFetchOptions {
  /** The fetch that makes the requests; default globalThis.fetch. */
  fetch?: typeof globalThis.fetch;
  /** toolerr's own sentence in native error messages instead of the upstream's sanitized one. */
  dropUpstreamMessage?: boolean;
  /** Each provider body's report from the request op, before it is sent. */
  onPrepare?: (endpoint: Endpoint, report: PrepareReport) => void;
  /** Each error event of a stream after it was rewritten; default console.warn (code, retryable). Never throws into the stream. */
  onStreamError?: (error: StreamError) => void;
  /** Milliseconds since the Unix epoch (the error op's now_ms); default Date.now. */
  now?: () => number;
}

/** Returns the endpoint a request of method to path (the URL's pathname, percent-encoded) calls, as the core's egress_endpoint op decides (the path matched by its end), null for any other. */
export function endpointOf(method: string, path: string): Endpoint | null;

/**
 * Returns a fetch that runs toolerr's egress ops on every provider request it
 * carries: the body through egress_request, an upstream error (400-599)
 * through egress_error (status kept, native body with the envelope,
 * retry-after, x-should-retry), stream error events (and the error elements
 * of Gemini's JSON-array stream, streamGenerateContent without alt=sse)
 * rewritten and reported.
 * For the `fetch` option of openai, @anthropic-ai/sdk, @google/genai
 * (`httpOptions.fetch`) and the AI SDK provider packages.
 */
export function egressFetch(options?: EgressFetchOptions): typeof globalThis.fetch;
