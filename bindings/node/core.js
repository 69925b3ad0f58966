// The runtime-neutral part of the toolerr Node/browser binding: moving bytes
// through the wasm exports (or the optional native addon, toolerr-native),
// building requests, mapping {"error": ...} to ToolerrError. index.js
// (node:wasi) and browser.js (a WASI shim) supply the instance, native-addon.js
// the addon when asked for; every rule (codes, messages, wire shapes,
// canonical JSON) is the core's.

import { readCauses } from './causes.js';
import { stringify } from './json.js';

let exportsOf = () => { throw new Error('toolerr: the wasm module is not loaded (browser: await init() first)'); };
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Sets the function that returns the instantiated module's exports (used by index.js and browser.js). */
export function setExports(fn) { exportsOf = fn; }

// The native transport when one is set (setTransport), else null: the wasm.
let native = null;

/**
 * Sends every later call of this thread through a native transport instead
 * of the wasm module: an object with invoke(request: Uint8Array): Uint8Array
 * and invokeText(request: string): string, both answering the core's
 * response bytes or text, and optionally invokeBytesText(request:
 * Uint8Array): string, bytes in and text out (the toolerr-native addon, set
 * by native-addon.js; without it the bytes invoke answers are decoded here);
 * null goes back to the wasm.
 */
export function setTransport(t) { native = t ?? null; }

/** Which transport this thread's calls take: 'native' (the toolerr-native addon) or 'wasm'. */
export function transport() { return native ? 'native' : 'wasm'; }

/** Returns the instantiated module's exports, the raw ABI (toolerr_alloc, toolerr_invoke, toolerr_free, memory). */
export function wasmExports() { return exportsOf(); }

/** Thrown for an {"error": envelope} response; carries all five envelope fields. */
export class ToolerrError extends Error {
  constructor(envelope) {
    super(envelope.message);
    this.name = 'ToolerrError';
    this.envelope = envelope;
    this.code = envelope.code;
    this.retryable = envelope.retryable;
    this.details = envelope.details;
    this.source = envelope.source;
  }
}

// One request buffer per instance, reused while requests fit (saves an
// alloc/free pair per call); replaced, the old one freed, when one does not.
let scratch = { x: null, ptr: 0, size: 0 };

// The largest buffer toolerr_alloc hands out (docs/targets.md, "WASM").
const MAX_ALLOC = 128 << 20;

// The largest request the core reads (core.MaxRequestBytes, toolerr.h
// TOOLERR_MAX_REQUEST_BYTES). A longer one is refused by its length alone
// (toolerr_invoke reads no byte of it, whatever the address: docs/targets.md,
// "Errors"), so it is never copied into the module's memory, which never
// shrinks (a 32 MiB text grew it by 210 MiB: the buffer, then the frame).
const MAX_REQUEST = 32 << 20;

// utf8Length is the length in bytes of text as UTF-8 (TextEncoder's: a lone
// surrogate is U+FFFD, 3 bytes), counted without encoding it.
const utf8Length = (text) => {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) n += 2, i++;
    else n += 2;
  }
  return n;
};

// The answer when toolerr_alloc fails below MAX_ALLOC: the module's memory is
// exhausted, and the request, unread, is not the caller's fault.
const OUT_OF_MEMORY = '{"error":{"code":"INTERNAL","details":{"reason":"out of memory"},' +
  '"message":"toolerr (Node binding): the wasm module is out of memory; it could not allocate the request.",' +
  '"retryable":false,"source":"orchestrator"}}';

// requestBuffer returns the address of at least size bytes of module memory
// for a request (0 past 128 MiB: invoke then answers INVALID_INPUT unread;
// -1 when the module could not allocate a smaller one).
function requestBuffer(x, size) {
  if (scratch.x !== x || scratch.size < size) {
    if (scratch.x === x && scratch.ptr) x.toolerr_free(scratch.ptr);
    const want = Math.max(4096, size);
    // wasm32 addresses are unsigned: an i32 past 2 GiB reads as a negative
    // number in JS, so every pointer is taken as u32 (>>> 0).
    const ptr = x.toolerr_alloc(want) >>> 0;
    scratch = { x, ptr, size: ptr ? want : 0 };
    if (!ptr && want <= MAX_ALLOC) return -1;
  }
  return scratch.ptr;
}

// call runs the len request bytes at p and hands the response, a view of
// module memory valid until read returns, to read; the buffers are freed after.
function call(x, p, len, read) {
  const r = BigInt.asUintN(64, x.toolerr_invoke(p, len));
  if (p && scratch.size > 1 << 20) { // do not keep a large buffer after a large request
    x.toolerr_free(p);
    scratch = { x: null, ptr: 0, size: 0 };
  }
  const outPtr = Number(r >> 32n), outLen = Number(r & 0xffffffffn);
  try {
    return read(new Uint8Array(x.memory.buffer, outPtr, outLen));
  } finally {
    x.toolerr_free(outPtr);
  }
}

const copyOut = (view) => view.slice();
const textOut = (view) => dec.decode(view);

// typedArrayKind is the %TypedArray%.prototype[Symbol.toStringTag] getter:
// the kind of a typed array ('Uint8Array' for a Buffer too, and for one of
// another realm), undefined for anything else, a Proxy or a forged tag included.
const typedArrayKind = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

// argError is the TypeError, code ERR_INVALID_ARG_TYPE, of an argument of the
// wrong type: the same on either transport (the wasm path made a string's
// bytes zeros and an Array's numbers bytes; the addon throws).
const argError = (message) => Object.assign(new TypeError(message), { code: 'ERR_INVALID_ARG_TYPE' });

/**
 * Runs one request (UTF-8 JSON bytes, a Uint8Array or Buffer) through
 * toolerr_invoke; returns the response bytes. Throws a TypeError with code
 * ERR_INVALID_ARG_TYPE for anything but a Uint8Array.
 */
export function invokeBytes(request) {
  if (typedArrayKind.call(request) !== 'Uint8Array') {
    throw argError("toolerr: invokeBytes(request) takes the request's UTF-8 JSON bytes as a Uint8Array (or Buffer)");
  }
  if (native) return native.invoke(request);
  const x = exportsOf();
  if (request.length > MAX_REQUEST) return call(x, 0, request.length, copyOut); // refused unread, not copied
  const p = requestBuffer(x, request.length);
  if (p < 0) return enc.encode(OUT_OF_MEMORY);
  if (p && request.length) new Uint8Array(x.memory.buffer, p, request.length).set(request);
  return call(x, p, request.length, copyOut);
}

// invokeBytesText runs one request given as bytes (a Uint8Array) and returns
// the response text, decoded straight out of module memory (or by the
// native transport), without the copy invokeBytes hands back. A number is
// the length of a request over MAX_REQUEST (frame's), answered unread.
function invokeBytesText(request) {
  if (typeof request === 'number') return call(exportsOf(), 0, request, textOut);
  if (native) return native.invokeBytesText ? native.invokeBytesText(request) : dec.decode(native.invoke(request));
  const x = exportsOf();
  if (request.length > MAX_REQUEST) return call(x, 0, request.length, textOut); // refused unread, not copied
  const p = requestBuffer(x, request.length);
  if (p < 0) return OUT_OF_MEMORY;
  if (p && request.length) new Uint8Array(x.memory.buffer, p, request.length).set(request);
  return call(x, p, request.length, textOut);
}

/**
 * Runs one request given as JSON text and returns the response text: the
 * text is encoded straight into module memory and the answer decoded
 * straight out of it, no intermediate copies. Throws a TypeError with code
 * ERR_INVALID_ARG_TYPE for anything but a string (never its toString).
 */
export function invokeText(text) {
  if (typeof text !== 'string') throw argError("toolerr: invokeText(text) takes the request's JSON text as a string");
  if (native) return native.invokeText(text);
  const x = exportsOf();
  // UTF-8 takes at most 3 bytes per UTF-16 unit; a short text fits the kept
  // buffer as it is. One that may not fit MAX_REQUEST is counted first: a
  // longer one is refused unread, a shorter one gets a buffer of its length.
  let size = text.length * 3;
  if (size > MAX_REQUEST) {
    size = utf8Length(text);
    if (size > MAX_REQUEST) return call(x, 0, size, textOut);
  }
  const p = requestBuffer(x, size);
  if (p < 0) return OUT_OF_MEMORY;
  const len = p ? enc.encodeInto(text, new Uint8Array(x.memory.buffer, p, scratch.size)).written : 0;
  return call(x, p, len, textOut);
}

const answer = (text) => {
  const resp = JSON.parse(text);
  if ('error' in resp) throw new ToolerrError(resp.error);
  return resp.ok;
};

/** Runs one Invoke request ({op, ...}) and returns its "ok" value; throws ToolerrError on {"error": ...}. */
export function invoke(request) {
  return answer(invokeText(stringify(request)));
}

// The intrinsic getters of a view's and a buffer's bytes: they read the
// object's internal slots, so an own "buffer" or "byteLength" property set on
// it, or a forged Symbol.toStringTag, cannot change which bytes are read.
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
const viewOf = {
  typed: [getter(typedArrayProto, 'buffer'), getter(typedArrayProto, 'byteOffset'), getter(typedArrayProto, 'byteLength')],
  data: [getter(DataView.prototype, 'buffer'), getter(DataView.prototype, 'byteOffset'), getter(DataView.prototype, 'byteLength')],
};
const bufferLengths = [getter(ArrayBuffer.prototype, 'byteLength')];
if (typeof SharedArrayBuffer === 'function') bufferLengths.push(getter(SharedArrayBuffer.prototype, 'byteLength'));
const isBuffer = (v) => bufferLengths.some((get) => { try { get.call(v); return true; } catch { return false; } });

// textOf is JSON text given as a string (the string itself: frame encodes
// it in place) or as bytes (any ArrayBuffer, SharedArrayBuffer or
// ArrayBufferView, of this realm or another: a Uint8Array over them, no
// copy); null for anything else (a value to send as JSON).
const textOf = (v) => {
  if (typeof v === 'string') return v;
  if (typedArrayKind.call(v) === 'Uint8Array') return v;
  if (ArrayBuffer.isView(v)) {
    const [buffer, byteOffset, byteLength] = typedArrayKind.call(v) ? viewOf.typed : viewOf.data;
    return new Uint8Array(buffer.call(v), byteOffset.call(v), byteLength.call(v));
  }
  if (isBuffer(v)) return new Uint8Array(v);
  return null;
};

// The transcript ops take the list (messages) or a whole request body
// (options.body); either may be JSON text (a string or bytes), which goes to
// the core unparsed: its parser refuses a duplicate key that JSON.parse
// would resolve silently to the last value. The last text is framed by a
// "raw_len" member after it (its length in bytes), for the core to hold it
// to exactly one JSON value: text such as '[],"id_rules":...' adds no
// member, it is INVALID_INPUT at "messages" or "body".
// JSON text as bytes is any ArrayBuffer, SharedArrayBuffer or ArrayBuffer
// view (a Uint8Array, Buffer, DataView, Int8Array, Uint8ClampedArray, ...),
// read as its bytes, as Buffer.from and TextDecoder read them: never
// stringified into an object the core would refuse as a list or body.
const op = (name, members) => {
  const raw = [];
  const req = { op: name };
  for (const [k, v] of Object.entries(members)) {
    if (v === undefined || v === null) continue;
    const text = (k === 'messages' || k === 'body') ? textOf(v) : null;
    if (text !== null) raw.push([k, text]); // '' too: framed, the core refuses it as text
    else req[k] = v;
  }
  if (!raw.length) return invoke(req);
  return answer(invokeBytesText(frame(stringify(req).slice(0, -1), raw)));
};

// A request up to FRAME_KEPT bytes (at most) is framed in frameBuf, kept
// from call to call (the transports copy or read it before they return).
const FRAME_KEPT = 64 << 10;
let frameBuf = new Uint8Array(0);

// frame writes the framed request's bytes: head (the other members' JSON
// text without its closing brace), each [name, text] of raw as a member,
// then "raw_len", the last text's length in bytes. On the wasm, a request
// over MAX_REQUEST is its length alone (a number), never written.
function frame(head, raw) {
  let cap = head.length * 3 + 32; // UTF-8 takes at most 3 bytes per UTF-16 unit
  for (const [k, v] of raw) cap += k.length * 3 + 4 + (typeof v === 'string' ? v.length * 3 : v.length);
  if (cap > MAX_REQUEST && !native) {
    let n = utf8Length(head), last = 0;
    for (const [k, v] of raw) n += utf8Length(k) + 4 + (last = typeof v === 'string' ? utf8Length(v) : v.length);
    n += `,"raw_len":${last}}`.length;
    if (n > MAX_REQUEST) return n;
  }
  if (cap > FRAME_KEPT) { // a long one: its parts encoded one by one, then joined
    const parts = [enc.encode(head)];
    for (const [k, v] of raw) parts.push(enc.encode(`,${JSON.stringify(k)}:`), typeof v === 'string' ? enc.encode(v) : v);
    parts.push(enc.encode(`,"raw_len":${parts[parts.length - 1].length}}`));
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
    return bytes;
  }
  if (frameBuf.length < cap) frameBuf = new Uint8Array(Math.max(4096, cap));
  const buf = frameBuf;
  let at = enc.encodeInto(head, buf).written, last = 0;
  for (const [k, v] of raw) {
    at += enc.encodeInto(`,${JSON.stringify(k)}:`, buf.subarray(at)).written;
    if (typeof v === 'string') last = enc.encodeInto(v, buf.subarray(at)).written;
    else buf.set(v, at), last = v.length;
    at += last;
  }
  at += enc.encodeInto(`,"raw_len":${last}}`, buf.subarray(at)).written;
  return buf.subarray(0, at);
}

export const version = () => op('version', {});
export const codes = () => op('codes', {});
export const envelope = (code, message, { retryable, details, source } = {}) =>
  op('envelope', { code, message, retryable, details, source });
export function canonicalize(value) {
  const out = invokeText(stringify({ op: 'canonicalize', value }));
  if (out.startsWith('{"error":')) throw new ToolerrError(JSON.parse(out).error);
  return out.slice('{"ok":'.length, -1);
}
export const sanitize = (text, { maxChars } = {}) => op('sanitize', { text, max_chars: maxChars });

// The classify ops' requests, as objects ({op, ...members}; undefined and
// null members are left out when sent).
const httpRequest = (status, headers = {}, body, { provider, source, tool, attempt, nowMs } = {}) => {
  const http = { status, headers: { ...headers } };
  if (body !== undefined && body !== null) http.body = body;
  return { op: 'classify', http, provider, source, tool, attempt, now_ms: nowMs };
};

// causeChain prints readCauses(err) as the traceback's "Caused by:" blocks
// the op reads for a transport cause (docs/classify.md): Node's fetch throws
// TypeError('fetch failed') with the system error (connect ECONNREFUSED ...)
// as its cause. A cause with a code is printed as util.inspect prints it,
// "Type [CODE]: text" ("AggregateError [ECONNREFUSED]: "). "" when err has
// no cause.
const causeChain = (err) => {
  let out = '';
  for (const { type, code, text } of readCauses(err)) out += `\n\nCaused by:\n    ${type}${code ? ` [${code}]` : ''}: ${text}`;
  return out;
};

// readText is String(read()), or '' when that throws: a thrown value that
// cannot be read as text (a null-prototype object, a toString, message or
// constructor getter that throws, a revoked Proxy) is classified by what can
// be read of it, never thrown out of the handler that classifies it.
const readText = (read) => {
  try {
    return String(read());
  } catch {
    return '';
  }
};

const exceptionRequest = (err, { tool } = {}) => {
  let type;
  try {
    type = err?.constructor?.name ?? typeof err; // '' (an anonymous class): the op reads the stack
  } catch {
    type = typeof err;
  }
  const exception = { type, message: readText(() => err?.message ?? err) };
  // The op reads a stack to find the type and message when no type is
  // given, and a cause chain for a transport cause (docs/classify.md);
  // err.stack is formatted when first read, so it is read only for an error
  // whose constructor has no name.
  const chain = causeChain(err);
  if (!type) exception.traceback = readText(() => err?.stack ?? '') + chain;
  else if (chain) exception.traceback = exception.message + chain;
  return { op: 'classify_exception', exception, tool };
};

const responseRequest = (obj, { bodyText, provider, source, tool, nowMs } = {}) => {
  const status = [obj?.status, obj?.statusCode, obj?.code].find(Number.isInteger);
  if (status === undefined) return exceptionRequest(obj, { tool });
  const h = obj.headers ?? obj.response?.headers;
  const headers = h && typeof h.entries === 'function' ? Object.fromEntries(h.entries()) : { ...(h ?? {}) };
  const body = bodyText ?? obj.error ?? obj.body ?? obj.message;
  return httpRequest(status, headers, body, { provider, source, tool, nowMs });
};

/**
 * The JSON text of the request classifyResponse(obj, options) sends, {"op":
 * "classify" | "classify_exception", ...}, not sent: a failure event of the
 * step op may carry it (its classify member, docs/resilience.md) to be
 * classified in the same crossing. Throws where classifyResponse would
 * before sending (a member that cannot be read or written as JSON).
 */
export function classifyRequestText(obj, options) {
  const req = {};
  for (const [k, v] of Object.entries(responseRequest(obj, options))) if (v !== undefined && v !== null) req[k] = v;
  return stringify(req);
}

// send runs one of those requests.
const send = ({ op: name, ...members }) => op(name, members);

export const classifyHttp = (status, headers, body, options) => send(httpRequest(status, headers, body, options));

export const classifyException = (err, options) => send(exceptionRequest(err, options));

/**
 * Classifies a fetch Response (give its body text, a Response stream is read
 * only once) or an openai / @anthropic-ai/sdk / @google/genai error, by duck
 * typing: status from .status (or .code), headers from .headers (a Headers or
 * a plain object), body from bodyText, .error, .body or .message (@google/genai
 * ApiError carries the JSON there). Without a status it
 * goes to classifyException.
 */
export const classifyResponse = (obj, options) => send(responseRequest(obj, options));

// An empty callId or name is left out of the call, as parse leaves it out, so
// that outcomeValue(fromOutcomeValue(v)) is v for every outcome the core returns.
export const outcomeValue = (o) => {
  const v = { call: {} };
  if (o.callId) v.call.id = o.callId;
  if (o.name) v.call.name = o.name;
  if (o.error) v.error = o.error;
  if (o.result) v.result = o.result;
  return v;
};
export const fromOutcomeValue = (v) => {
  const o = { callId: v.call.id ?? '', name: v.call.name ?? '' };
  if (v.error) o.error = v.error;
  if (v.result) o.result = v.result;
  return o;
};

// outputSchema (mcp only): whether the tool declares an outputSchema; false puts a failure's envelope
// in structuredContent too, true or undefined (not known) keeps it in the text block alone.
export const serialize = (format, outcomes, { outputSchema } = {}) => op('serialize', outputSchema === undefined
  ? { format, results: resultsOf(outcomes) }
  : { format, output_schema: outputSchema, results: resultsOf(outcomes) });

// resultsOf is the serialize op's results of outcomes, an array of outcome
// objects; a TypeError naming the argument for anything else (null, an
// object, a string, an array holding null or a number).
const resultsOf = (outcomes) => {
  if (!Array.isArray(outcomes)) throw new TypeError(`toolerr: outcomes must be an array of outcomes, got ${outcomes === null ? 'null' : typeof outcomes}`);
  return outcomes.map((o, i) => {
    if (o === null || typeof o !== 'object') throw new TypeError(`toolerr: outcomes[${i}] must be an outcome ({callId, name, error or result}), got ${o === null ? 'null' : typeof o}`);
    return outcomeValue(o);
  });
};
export const parse = (format, messages) => op('parse', { format, messages }).map(fromOutcomeValue);
export const toOpenAIChat = (outcomes) => serialize('openai-chat', outcomes);
export const toOpenAIResponses = (outcomes) => serialize('openai-responses', outcomes);
export const toAnthropic = (outcomes) => serialize('anthropic', outcomes);
export const toGemini = (outcomes) => serialize('gemini', outcomes);
export const toBedrock = (outcomes) => serialize('bedrock', outcomes);
export const toMCP = (outcomes, options = {}) => serialize('mcp', outcomes, options);

// The members a caller's options never set: the op's name, and the framing
// of JSON text spliced into a request (core/splice.go).
const FRAME = ['op', 'raw_len'];

// withOptions is the members of a request to fn: own (those the function
// writes from its arguments), then each of options' own enumerable members.
// A TypeError naming the option (or member) that would replace "op",
// "raw_len" or one of own: a silently different op or request otherwise.
const withOptions = (fn, own, options) => {
  const members = { ...own };
  for (const k of Object.keys(own)) if (FRAME.includes(k)) throw reserved(fn, k);
  for (const [k, v] of Object.entries(options ?? {})) {
    if (FRAME.includes(k) || Object.hasOwn(own, k)) throw reserved(fn, k);
    members[k] = v;
  }
  return members;
};

const reserved = (fn, name) => Object.assign(new TypeError(
  `toolerr: ${fn}: "${name}" is a member of the request the binding writes; it cannot be an option`), { code: 'ERR_INVALID_ARG_VALUE' });

export const check = (format, messages, options) => op('check', withOptions('check', { format, messages }, options));
export const repair = (format, messages, options) => op('repair', withOptions('repair', { format, messages }, options));
export const convert = (messages, { from, to, ...options }) => op('convert', withOptions('convert', { from, to, messages }, options));
export const trim = (format, messages, options) => op('trim', withOptions('trim', { format, messages }, options));
export const normalizeIds = (format, messages, options) =>
  op('normalize_ids', withOptions('normalizeIds', { format, messages }, options));
export const loopGuard = (members) => op('loop_guard', withOptions('loopGuard', {}, members));
/** The egress_request op on a whole request body (an object, or its JSON text: a string or bytes, sent unparsed). */
export const egressRequest = (format, body, options) => op('egress_request', withOptions('egressRequest', { format, body }, options));

export const retryDecision = (error, attempt, { draw, policy }) => op('retry', { error, attempt, draw, policy });
export const breaker = (state, event, { nowMs, settings, error, tool }) =>
  op('breaker', { state, event, now_ms: nowMs, settings, error, tool });
export const budget = (state, { limits, nowMs, charge }) => op('budget', { state, limits, now_ms: nowMs, charge });
export const replay = (trace, format) => op('replay', { trace, format });
