// Type declarations of the toolerr package (index.js in Node, browser.js in browsers).
// The shapes mirror the core's Invoke responses (README, "Invoke reference").

/** Where a failure happened. */
export type Source = 'tool' | 'provider' | 'orchestrator';

/** The five-field error envelope. */
export interface Envelope {
  /** UPPER_SNAKE registry token, e.g. "RATE_LIMITED". */
  code: string;
  /** One sanitized sentence for the model. */
  message: string;
  /** May the orchestrator retry without the model? */
  retryable: boolean;
  /** Machine fields (status, retry_after_seconds, tool, path, ...); {} when empty. */
  details: Record<string, unknown>;
  source: Source;
}

/** Thrown for an {"error": envelope} response. */
export class ToolerrError extends Error {
  constructor(envelope: Envelope);
  readonly envelope: Envelope;
  readonly code: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly source: Source;
}

/** A successful result: {} (empty), {text}, {json} or {blocks}. */
export type Result =
  | Record<string, never>
  | { text: string }
  | { json: unknown }
  | { blocks: Array<{ type: 'text'; text: string } | { type: 'image'; media_type: string; data: string }> };

/** One tool call and what came of it: error or result. */
export interface Outcome {
  /** The provider's call id ("" where the format has none). */
  callId?: string;
  /** The function name (Gemini needs it). */
  name?: string;
  error?: Envelope;
  result?: Result;
}

/** A wire format, or one of the provider table's aliases (any case at run time; README, "Names"). */
export type Format = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'gemini-openai' | 'bedrock' | 'mcp'
  | 'openai' | 'chat' | 'chat-completions' | 'responses' | 'claude' | 'google' | 'vertex' | 'genai' | 'aws' | 'converse' | 'bedrock-converse';
export type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };
type TextPart = { type: 'text'; text: string };
type ImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** A Chat Completions tool message (ChatCompletionToolMessageParam). */
export interface OpenAIChatToolMessage { role: 'tool'; tool_call_id: string; content: string | TextPart[] }
/** The Chat Completions user message that follows the tool messages with their images (ChatCompletionUserMessageParam). */
export interface OpenAIChatUserMessage { role: 'user'; content: Array<TextPart | { type: 'image_url'; image_url: { url: string } }> }
/** What toOpenAIChat returns: a tool message per outcome, then one user message when results hold images. */
export type OpenAIChatMessage = OpenAIChatToolMessage | OpenAIChatUserMessage;
/** A Responses API function_call_output input item (ResponseInputItem.FunctionCallOutput): text, or input_text / input_image items. */
export interface OpenAIResponsesOutput {
  type: 'function_call_output';
  call_id: string;
  output: string | Array<{ type: 'input_text'; text: string } | { type: 'input_image'; image_url: string }>;
}
/** An Anthropic user message of tool_result blocks (MessageParam). */
export interface AnthropicMessage {
  role: 'user';
  content: Array<{
    type: 'tool_result';
    tool_use_id: string;
    content?: string | Array<TextPart | { type: 'image'; source: { type: 'base64'; media_type: ImageMediaType; data: string } }>;
    is_error?: boolean;
  }>;
}
/** A Gemini user Content of functionResponse parts (Content). */
export interface GeminiContent {
  role: 'user';
  parts: Array<{ functionResponse: {
    id?: string; name: string; response: Record<string, unknown>;
    /** The result's images (FunctionResponsePart). */
    parts?: Array<{ inlineData: { mimeType: string; data: string } }>;
  } }>;
}
/** A Bedrock Converse user message of toolResult blocks (Message). */
export interface BedrockMessage {
  role: 'user';
  content: Array<{ toolResult: { toolUseId: string; content: Array<Record<string, unknown>>; status?: 'success' | 'error' } }>;
}
/** An MCP CallToolResult (resultType: MCP 2026-07-28). */
export interface MCPCallToolResult { content: Array<Record<string, unknown>>; isError?: boolean; structuredContent?: Record<string, unknown>; resultType?: 'complete' }

/** Runs one request (UTF-8 JSON bytes) and returns the response bytes, unchanged; a TypeError (code ERR_INVALID_ARG_TYPE) for anything but a Uint8Array. */
export function invokeBytes(request: Uint8Array): Uint8Array;
/** Runs one request given as JSON text and returns the response text, unchanged; a TypeError (code ERR_INVALID_ARG_TYPE) for anything but a string. */
export function invokeText(request: string): string;
/** Runs one Invoke request and returns its "ok" value; throws ToolerrError. */
export function invoke(request: { op: string; [member: string]: unknown }): any;
export function version(): { abi: number; version: string };
export function codes(): Array<{ code: string; retryable: boolean; source: Source; statuses: number[]; provider_errors: string[]; meaning: string }>;
export function envelope(code: string, message: string, options?: { retryable?: boolean; details?: Record<string, unknown>; source?: Source }): Envelope;
/** RFC 8785 canonical JSON text of value, as the core writes it. */
export function canonicalize(value: unknown): string;
export function sanitize(text: string, options?: { maxChars?: number }): { text: string; truncated: boolean; original_chars?: number };

/** tool names the tool whose call failed: the failure is then the tool's unless source says otherwise (the core's rule). */
export interface ClassifyOptions { provider?: string; source?: Source; tool?: string; attempt?: number; /** ms since the Unix epoch */ nowMs?: number }
export function classifyHttp(status: number, headers?: Record<string, string>, body?: unknown, options?: ClassifyOptions): Envelope;
export function classifyException(err: unknown, options?: { tool?: string }): Envelope;
export function classifyResponse(obj: unknown, options?: ClassifyOptions & { bodyText?: string }): Envelope;
/** The JSON text of the request classifyResponse(obj, options) sends ({"op": "classify" | "classify_exception", ...}), not sent: a step op failure event may carry it as its classify member (docs/resilience.md). Throws where classifyResponse would before sending. */
export function classifyRequestText(obj: unknown, options?: ClassifyOptions & { bodyText?: string }): string;

/** outputSchema (mcp only): whether the tool declares an outputSchema; false puts a failure's envelope in structuredContent too, true or undefined (not known) keeps it in the text block alone (the serialize op's output_schema). */
export interface SerializeOptions { outputSchema?: boolean }
export function serialize(format: Format, outcomes: Outcome[], options?: SerializeOptions): Array<Record<string, unknown>>;
export function parse(format: Format, messages: unknown[]): Outcome[];
/** The neutral {call: {id?, name?}, error? | result?} object of an Outcome, as serialize reads it and parse writes it (an empty callId or name is left out). */
export function outcomeValue(o: Outcome): { call: { id?: string; name?: string }; error?: Envelope; result?: Result };
/** The Outcome of one element of a parse answer; outcomeValue(fromOutcomeValue(v)) is v. */
export function fromOutcomeValue(v: { call: { id?: string; name?: string }; error?: Envelope; result?: Result }): Outcome;
export function toOpenAIChat(outcomes: Outcome[]): OpenAIChatMessage[];
export function toOpenAIResponses(outcomes: Outcome[]): OpenAIResponsesOutput[];
export function toAnthropic(outcomes: Outcome[]): AnthropicMessage[];
export function toGemini(outcomes: Outcome[]): GeminiContent[];
export function toBedrock(outcomes: Outcome[]): BedrockMessage[];
export function toMCP(outcomes: Outcome[], options?: SerializeOptions): MCPCallToolResult[];

/**
 * JSON text: a string, or its UTF-8 bytes as any ArrayBuffer, SharedArrayBuffer or ArrayBuffer view
 * (a Uint8Array or Buffer, a DataView, an Int8Array, ...: its bytes are read, as Buffer.from reads them).
 */
export type JSONText = string | ArrayBuffer | SharedArrayBuffer | ArrayBufferView;
/**
 * A message list, or JSON text of one (read by the core's parser, which refuses duplicate keys);
 * null when `options.body` gives a whole request body instead.
 */
export type TranscriptList = unknown[] | JSONText | null;
/**
 * Options of the transcript ops: `body` is a whole request body of the format (a Chat Completions,
 * Responses, Anthropic Messages, Gemini generateContent or Bedrock Converse request, or JSON text of
 * one) given instead of the list; the result then holds `body`, the whole body with only what
 * changed changed. Other members are the op's (id_rules, open_calls, model, max_chars, ...).
 */
export interface TranscriptOptions { body?: Record<string, unknown> | JSONText; [k: string]: unknown }

export function check(format: Format, messages: TranscriptList, options?: TranscriptOptions): any;
export function repair(format: Format, messages: TranscriptList, options?: TranscriptOptions): any;
export function convert(messages: TranscriptList, options: TranscriptOptions & { from: Format; to: Format }): any;
export function trim(format: Format, messages: TranscriptList, options?: TranscriptOptions): any;
export function normalizeIds(format: Format, messages: TranscriptList, options?: TranscriptOptions): any;
export function loopGuard(members: Record<string, unknown>): any;
/**
 * The egress_request op (docs/egress.md, "The request op"): a whole request
 * body of format (an object, or its JSON text, sent to the core unparsed) in,
 * `{body, changed, changes, id_map?, findings}` out. Options: `model` (a
 * Gemini body's model, from its URL), `id_rules`, `capabilities`,
 * `open_calls`. Throws ToolerrError (INVALID_INPUT) for a body the op cannot read.
 */
export function egressRequest(format: Format, body: Record<string, unknown> | JSONText, options?: Record<string, unknown>): { body: Record<string, unknown>; changed: boolean; changes: Record<string, unknown>; id_map?: Record<string, string>; findings: unknown[] };

export function retryDecision(error: Envelope, attempt: number, options: { draw: number; policy?: Record<string, unknown> }): { retry: boolean; delay_ms: number; reason: string };
export function breaker(state: Record<string, unknown> | null, event: 'allow' | 'success' | 'failure', options: { nowMs: number; settings?: Record<string, unknown>; error?: Envelope; tool?: string }): { state: Record<string, unknown>; allowed?: boolean; error?: Envelope };
export function budget(state: Record<string, unknown> | null, options: { limits: Record<string, unknown>; nowMs: number; charge?: Record<string, unknown> }): { allowed: boolean; state: Record<string, unknown>; remaining: Record<string, unknown>; error?: Envelope };
export function replay(trace: Record<string, unknown>, format: Format): any;

// The runtime (runtime.js): one tool call under the core's step op. docs/resilience.md, "The step op".

/** Bytes as a store keeps them (a Node Buffer is one). */
export type Bytes = Uint8Array;

/** The byte-level compare-and-swap port every breaker store implements (methods may return promises). */
export interface Store {
  /** The bytes stored under key, or null. */
  load(key: string): Bytes | null | Promise<Bytes | null>;
  /** Stores next only if key holds exactly old (null: nothing); current is what it holds when not swapped. */
  compareAndSwap(key: string, old: Bytes | null, next: Bytes): { swapped: boolean; current: Bytes | null } | Promise<{ swapped: boolean; current: Bytes | null }>;
}

/** The in-process Store: a Map of bytes. */
export class MemoryStore implements Store {
  load(key: string): Bytes | null;
  compareAndSwap(key: string, old: Bytes | null, next: Bytes): { swapped: boolean; current: Bytes | null };
}

/** One agent run's step/token/time budget, shared by its calls; state is what was spent. */
export class Budget {
  constructor(limits: { steps?: number; tokens?: number; wall_ms?: number });
  limits: { steps?: number; tokens?: number; wall_ms?: number };
  state: { steps: number; tokens: number; started_ms: number } | null;
}

/** One agent run's loop guard: refuses a call that failed threshold times in a row with the same args. A threshold that is not a whole number from 1 (0 included) is refused on the first call (INVALID_INPUT, loop.threshold). */
export class LoopGuard {
  constructor(threshold?: number);
  threshold: number;
  state: Record<string, { args: string; failures: number }> | null;
}

/** Throw it from a tool to hand the executor your own envelope. */
export class ToolFailure extends Error {
  constructor(envelope: Envelope);
  readonly envelope: Envelope;
}

/**
 * The envelope of a tool's failure, as the executor reports it: an error with
 * an .envelope (ToolFailure, ToolerrError) keeps its own; anything else goes
 * to classifyResponse with source "tool" and the tool's name.
 */
export function failureEnvelope(err: unknown, tool?: string): Envelope;

/** One decision of a call, the same record in every language (docs/resilience.md, "Decision records"). */
export interface DecisionRecord {
  kind: 'budget' | 'loop_guard' | 'breaker' | 'call' | 'retry' | 'fallback';
  level: 'debug' | 'info' | 'warn';
  tool: string;
  attempt: number;
  allowed?: boolean;
  /** breaker, fallback: the breaker event. */
  event?: 'allow' | 'success' | 'failure';
  /** breaker: the phase after the event, and before it when it changed. */
  phase?: 'closed' | 'open' | 'half_open';
  from?: 'closed' | 'open' | 'half_open';
  probe?: boolean;
  reason?: string;
  delay_ms?: number;
  code?: string;
  retryable?: boolean;
  failures?: number;
  threshold?: number;
  /** fallback: the store's error text, sanitized. */
  error?: string;
}

/** How one call ended: value on success, else error (the envelope for the model). */
export class CallResult<T> {
  readonly ok: boolean;
  readonly value: T | undefined;
  readonly error: Envelope | null;
  /** How many calls of the tool were made. */
  readonly attempts: number;
  /** The tool's last thrown error, or the abort reason. */
  readonly cause: unknown;
  /** The outcome to serialize: the envelope, or the value as text, JSON or empty. */
  outcome(callId: string, name: string): Outcome;
}

export interface ExecutorOptions {
  /** Shared between replicas; default this executor's memory. */
  store?: Store;
  /** How long a failed store is left alone, in ms (default 1000); meanwhile the breaker decides on the last state this executor saw there. A fraction rounds up; 0, a negative, NaN or null is refused as timeoutMs is (store_backoff_ms). */
  storeBackoffMs?: number;
  /** Goes before the tool name in the store key; default "toolerr:breaker:". */
  keyPrefix?: string;
  retry?: { max_attempts?: number; base_ms?: number; cap_ms?: number; max_wait_ms?: number };
  breaker?: { failure_threshold?: number; open_ms?: number; success_threshold?: number };
  /** One call's bound in ms, retries and sleeps included; a fraction rounds up. 0, a negative, NaN, Infinity or null is refused on the first call (ToolerrError INVALID_INPUT, details.path timeout_ms). */
  timeoutMs?: number;
  budget?: Budget;
  loopGuard?: LoopGuard;
  /** Turns a thrown error into an envelope; default classifyResponse with source "tool". */
  classify?: (err: unknown, tool: string) => Envelope;
  onDecision?: (record: DecisionRecord) => void;
  /** true (globalThis.console) or a console-like object: "toolerr decision <json>" at the record's level. */
  console?: boolean | { debug(...a: unknown[]): void; info(...a: unknown[]): void; warn(...a: unknown[]): void };
  /** ms since the Unix epoch; default Date.now. */
  clock?: () => number;
  /** Waits ms, rejecting when signal aborts; default a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A uniform number in [0, 1); default Math.random. */
  draw?: () => number;
}

/** Runs tool calls under the core's decisions; dispatches each record as a 'decision' CustomEvent. */
export class Executor extends EventTarget {
  constructor(options?: ExecutorOptions);
  budget: Budget | null;
  loopGuard: LoopGuard | null;
  /** Resolves to a CallResult; never rejects for the tool's failures. */
  call<T>(tool: string, fn: (ctx: { signal?: AbortSignal; attempt: number }) => Promise<T> | T,
    options?: { args?: unknown; tokens?: number; signal?: AbortSignal }): Promise<CallResult<T>>;
  /** The breaker state of tool this executor last saw in its store (or, while the store fails, made from it), as its canonical bytes, or null. */
  replicaState(tool: string): Uint8Array | null;
}

/** Browser only (browser.js): loads toolerr.wasm; await it once before any call. */
export function init(source?: string | URL | Response | WebAssembly.Module): Promise<void>;
/** The instantiated module's exports: the raw ABI (cshared/toolerr.h, "WebAssembly"); pointers are u32. */
export function wasmExports(): WebAssembly.Exports & { memory: WebAssembly.Memory };
/** Internal: sets the source of the wasm exports. */
export function setExports(fn: () => WebAssembly.Exports): void;
/** Which transport this thread's calls take: 'native' (the toolerr-native addon: toolerr/native or TOOLERR_NATIVE=1) or 'wasm' (the default). */
export function transport(): 'native' | 'wasm';
/** Internal: sends this thread's calls through a native transport (the toolerr-native addon), or back to the wasm with null. */
export function setTransport(t: { invoke(request: Uint8Array): Uint8Array; invokeText(request: string): string; invokeBytesText?(request: Uint8Array): string } | null): void;
