// toolerr/egress: the core's egress ops as a fetch wrapper, for the official
// SDKs' `fetch` option (docs/egress.md, "For the in-process transports"; the
// gateway, gateway/, is the reference). Every decision is the core's
// (egress_request, egress_error, egress_scan); this module does I/O only.

// The package's own entry, so that Node loads toolerr.wasm and a browser
// bundle takes browser.js, as for `import 'toolerr'`.
import { ToolerrError, canonicalize, egressRequest, invoke, invokeBytes } from 'toolerr';
import { readCauses, readText } from './causes.js';

const MAX_REQUEST_BYTES = 32 << 20; // the core's request bound (core.MaxRequestBytes): larger bodies go unread
const MAX_ERROR_BYTES = 1 << 20; // an upstream error body is read up to 1 MiB, as the gateway reads it
const SUCCESS_HEAD_BYTES = 256; // a success is read this far to tell an error object in place of the answer (core.EgressSuccessHeadBytes)
// Upstream headers a rewritten response does not keep: its body is new, and
// fetch has already decoded it (length, encoding, type); the wait hints
// (RFC 9110, 10.2.3 Retry-After; the retry-after-ms the OpenAI and Anthropic
// SDKs read first) go whatever the op says: it gives the wait it read from
// them, and none for one it could not read (-5, abc, 1e9).
const DROPPED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'content-type', 'retry-after', 'retry-after-ms']);
const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * Returns the provider API a request of method to path calls, `null` for any
 * other: `{api, format, model}`, api as the gateway's routes name it
 * (`chat_completions`, `responses`, `messages`, `count_tokens`,
 * `generate_content`, `stream_generate_content`), format the wire format of
 * its bodies and of the errors its SDK parses, model the model of a Gemini
 * path (`''` otherwise). The core decides (the egress_endpoint op), as it
 * does for every binding's transport and the gateway. The path is the URL's
 * `pathname`, percent-encoded as sent; it is matched by its end, so a base
 * URL with a prefix is the provider's own (Azure OpenAI's
 * `/openai/deployments/d/chat/completions`, Gemini's OpenAI-compatible
 * `/v1beta/openai/chat/completions`, Vertex AI's
 * `.../publishers/google/models/m:generateContent`); the Assistants API's
 * `/v1/threads/t/messages` is not Anthropic's. Only POST. Answers are
 * cached (up to 256 method and path pairs).
 */
export function endpointOf(method, path) {
  const key = `${method} ${path}`;
  let ep = endpoints.get(key);
  if (ep === undefined) {
    ep = invoke({ op: 'egress_endpoint', method: String(method), path: String(path) }).endpoint;
    if (endpoints.size >= 256) endpoints.clear();
    endpoints.set(key, ep);
  }
  return ep && { ...ep };
}

const endpoints = new Map(); // endpointOf's answers

/**
 * Returns a `fetch` that runs toolerr's egress ops on every provider request
 * it carries (endpointOf) and passes any other request to `options.fetch`
 * (default `globalThis.fetch`) untouched. Give it to an SDK:
 *
 *   new OpenAI({ fetch: egressFetch() })                                // openai
 *   new Anthropic({ fetch: egressFetch() })                             // @anthropic-ai/sdk
 *   new GoogleGenAI({ apiKey, httpOptions: { fetch: egressFetch() } })  // @google/genai
 *   createOpenAI({ fetch: egressFetch() })                              // @ai-sdk/openai, @ai-sdk/anthropic, @ai-sdk/google
 *
 * For each provider request: the body goes through the egress_request op
 * (the op's body is sent when it changed something, else the very bytes
 * the SDK wrote; a body the op cannot read is sent as it came); an answer of
 * status 400-599 becomes the egress_error op's reply (the status kept, the
 * native error body with the envelope under `error.toolerr`, retry-after,
 * retry-after-ms, x-should-retry and x-toolerr-envelope replacing the
 * upstream's headers of those names, an upstream retry-after or
 * retry-after-ms the op gives none for, such as -5, abc or 1e9, dropped,
 * every other header kept), so the SDK
 * throws its own error class and retries by its own rule, once (this never
 * retries); a `text/event-stream` answer passes event by event as it
 * arrives, each error event inside it replaced by the op's event for the
 * client's API and reported, and so does any other success of Gemini's
 * streamGenerateContent (a JSON array without alt=sse), element by element,
 * an error element replaced by the op's error object; a request the upstream never answered (a
 * refused or reset connection) gets the op's native 502, while an abort or
 * a timeout (the caller's own signal) is thrown as it came.
 *
 * Options: `fetch` (the fetch that makes the requests), `dropUpstreamMessage`
 * (toolerr's own sentence in native error messages instead of the
 * upstream's sanitized one), `onPrepare(endpoint, report)` (each body's
 * report: changed, changes, id_map, findings), `onStreamError({endpoint,
 * envelope, event, data})` (each error event of a stream after it was
 * rewritten; default: console.warn with the code and retryable, never a
 * body; an exception it throws is reported with console.error, never
 * thrown into the stream), `now()` (milliseconds since the Unix epoch, the
 * error op's now_ms; default Date.now).
 */
export function egressFetch(options = {}) {
  const base = options.fetch ?? ((...a) => globalThis.fetch(...a));
  const eg = {
    drop: Boolean(options.dropUpstreamMessage),
    onPrepare: options.onPrepare,
    onStreamError: options.onStreamError,
    now: options.now ?? Date.now,
  };
  return async function fetchWithEgress(input, init) {
    const req = input instanceof Request ? input : null;
    const url = new URL(req ? req.url : String(input));
    const method = init?.method ?? req?.method ?? 'GET';
    const ep = endpointOf(method, url.pathname);
    if (!ep) return base(input, init);
    const raw = await requestBytes(input, init);
    if (raw === null) return base(input, init);
    const body = prepare(eg, ep, raw);
    const headers = new Headers(init?.headers ?? req?.headers);
    headers.delete('content-length');
    const sent = { ...(req ? requestInit(req) : {}), ...init, method, headers, body };
    let resp;
    try {
      resp = await base(req ? req.url : input, sent);
    } catch (err) {
      const signal = init?.signal ?? req?.signal;
      if (signal?.aborted || err?.name === 'AbortError' || err?.name === 'TimeoutError') throw err;
      return reply(invoke(errorRequest(eg, ep, { error_text: errorText(err) })), [], undefined);
    }
    if (resp.status >= 400) {
      const text = dec.decode(await readCapped(resp));
      // No prototype: an upstream header named constructor or __proto__ is
      // a header like any other (k in {} found Object's, and the op was
      // sent [null, value] for it and refused the request).
      const hs = Object.create(null);
      for (const [k, v] of resp.headers) hs[k] = Object.hasOwn(hs, k) ? [].concat(hs[k], v) : v;
      const rep = invoke(errorRequest(eg, ep, { http: { status: resp.status, headers: hs, body: text } }));
      return reply(rep, [...resp.headers], resp);
    }
    if (isEventStream(resp.headers) && resp.body) return streamed(resp, new Scan(eg, ep, 'sse'));
    // Gemini's streamGenerateContent without alt=sse: one JSON array,
    // element by element (a body that is no array passes unread).
    if (ep.api === 'stream_generate_content' && resp.body) return streamed(resp, new Scan(eg, ep, 'array'));
    if (resp.status >= 200 && resp.status <= 299 && resp.body) return success(eg, ep, resp);
    return resp;
  };
}

// A success that is not a stream: read as far as it takes to tell an error
// object in place of the answer (Gemini's 200 {"error":{...}}), which the
// core answers as the failure it stands for (the error op's http status
// 200-299); any other passes as it came, the bytes read put back in front.
async function success(eg, ep, resp) {
  const reader = resp.body.getReader();
  const parts = [];
  let n = 0;
  let ended = false;
  let gate = false; // the head may open an error object: read on, up to MAX_ERROR_BYTES
  while (n < (gate ? MAX_ERROR_BYTES + 1 : SUCCESS_HEAD_BYTES)) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    const before = n;
    parts.push(value);
    n += value.length;
    if (before < SUCCESS_HEAD_BYTES && n >= SUCCESS_HEAD_BYTES) gate = mayBeErrorObject(eg, ep, resp.status, concat(parts).subarray(0, SUCCESS_HEAD_BYTES));
  }
  const held = concat(parts);
  if (ended && mayBeErrorObject(eg, ep, resp.status, held.subarray(0, SUCCESS_HEAD_BYTES))) {
    const hs = Object.create(null);
    for (const [k, v] of resp.headers) hs[k] = Object.hasOwn(hs, k) ? [].concat(hs[k], v) : v;
    let rep;
    try {
      rep = invoke(errorRequest(eg, ep, { http: { status: resp.status, headers: hs, body: dec.decode(held) } }));
    } catch (err) {
      if (!(err instanceof ToolerrError)) throw err;
    }
    if (rep && !rep.pass) return reply(rep, [...resp.headers], resp);
  }
  const body = new ReadableStream({
    start(ctl) {
      if (held.length) ctl.enqueue(held);
      if (ended) ctl.close();
    },
    async pull(ctl) {
      const { done, value } = await reader.read();
      if (done) ctl.close();
      else ctl.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  const headers = new Headers();
  for (const [k, v] of resp.headers) if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') headers.append(k, v);
  const out = new Response(body, { status: resp.status, statusText: resp.statusText, headers });
  if (resp.url) Object.defineProperty(out, 'url', { value: resp.url });
  return out;
}

// Whether head, the first SUCCESS_HEAD_BYTES of a success of status (or
// all of a shorter one), may open an error object in place of the answer,
// as the core tells it: the egress_error op with http.head answers
// {read: true} or {pass: true} (docs/egress.md, "The success-head gate").
// Such a body is read whole and the core decides on it.
function mayBeErrorObject(eg, ep, status, head) {
  return invoke(errorRequest(eg, ep, { http: { status, head: dec.decode(head) } })).read === true;
}

// The body's bytes, or null when there is none or it is not bytes (a
// FormData upload is not a provider JSON body).
async function requestBytes(input, init) {
  const b = init?.body;
  if (b === undefined || b === null) {
    return input instanceof Request && input.body ? new Uint8Array(await input.clone().arrayBuffer()) : null;
  }
  if (typeof b === 'string') return enc.encode(b);
  if (b instanceof Uint8Array) return b;
  if (b instanceof ArrayBuffer) return new Uint8Array(b);
  if (ArrayBuffer.isView(b)) return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  if (typeof b.getReader === 'function' || b instanceof Blob) return new Uint8Array(await new Response(b).arrayBuffer());
  return null;
}

function requestInit(req) {
  return { method: req.method, headers: req.headers, signal: req.signal, redirect: req.redirect };
}

function prepare(eg, ep, raw) {
  if (raw.length > MAX_REQUEST_BYTES) return raw;
  let rep;
  try {
    rep = egressRequest(ep.format, raw, ep.model ? { model: ep.model } : {});
  } catch (err) {
    if (err instanceof ToolerrError) return raw; // unreadable: the upstream answers it in its own words
    throw err;
  }
  eg.onPrepare?.(ep, { changed: rep.changed, changes: rep.changes, id_map: rep.id_map, findings: rep.findings });
  return rep.changed ? enc.encode(canonicalize(rep.body)) : raw;
}

function errorRequest(eg, ep, upstream) {
  const req = { op: 'egress_error', ingress: ep.format, upstream: { provider: ep.format, now_ms: Math.floor(eg.now()), ...upstream } };
  if (eg.drop) req.upstream_message = 'drop';
  return req;
}

// The error text of a fetch that never got an answer: undici throws
// TypeError('fetch failed') with the system error as its cause. The error's
// text, then each cause as readCauses reads it (its code, if any, before its
// text: an AggregateError of refused connections has only its code), joined
// by ': '; a hostile error (no prototype, a getter or a Proxy that throws, a
// cycle, a message past the request limit) gives what can be read of it.
function errorText(err) {
  const parts = [readText(err)];
  for (const { code, text } of readCauses(err)) parts.push(code ? `${code} ${text}` : text);
  return parts.join(': ');
}

async function readCapped(resp) {
  if (!resp.body) return new Uint8Array(0);
  const reader = resp.body.getReader();
  const parts = [];
  let n = 0;
  try {
    while (n < MAX_ERROR_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      n += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return concat(parts).subarray(0, MAX_ERROR_BYTES);
}

function reply(rep, upstreamHeaders, upstream) {
  const replaced = new Set(Object.keys(rep.headers).map((k) => k.toLowerCase()));
  const headers = new Headers();
  for (const [k, v] of upstreamHeaders) if (!DROPPED.has(k) && !replaced.has(k)) headers.append(k, v);
  for (const [k, v] of Object.entries(rep.headers)) headers.set(k, v);
  const out = new Response(canonicalize(rep.body), { status: rep.status, statusText: upstream?.statusText ?? '', headers });
  if (upstream?.url) Object.defineProperty(out, 'url', { value: upstream.url });
  return out;
}

function isEventStream(headers) {
  return (headers.get('content-type') ?? '').split(';', 1)[0].trim().toLowerCase() === 'text/event-stream';
}

// The response the SDK reads for resp, a stream that began with a success,
// its body passed through events (a Scan).
function streamed(resp, events) {
  const body = resp.body.pipeThrough(new TransformStream({
    transform(chunk, ctl) {
      const out = events.feed(chunk);
      if (out.length) ctl.enqueue(out);
    },
    flush(ctl) {
      const rest = events.flush();
      if (rest.length) ctl.enqueue(rest);
    },
  }));
  const headers = new Headers();
  for (const [k, v] of resp.headers) if (k !== 'content-length' && k !== 'content-encoding' && k !== 'transfer-encoding') headers.append(k, v);
  const out = new Response(body, { status: resp.status, statusText: resp.statusText, headers });
  if (resp.url) Object.defineProperty(out, 'url', { value: resp.url });
  return out;
}

// Frames a stream as it arrives with the core (the egress_scan op), which
// every transport of every binding and the gateway run: this class only
// moves bytes. Each chunk goes to the core after the bytes it held last time
// (the frame in progress), with the state it answered; the core answers
// which bytes pass, which are replaced (an error event or element, by the
// error op's) and which it holds. feed returns what is ready for the client;
// flush what it gets when the stream ends (an unfinished frame read as a
// complete one: an error there is replaced). kind is 'sse' (a
// text/event-stream) or 'array' (Gemini's streamGenerateContent without
// alt=sse). See docs/egress.md, "Streams". Exported for the tests only (not
// in egress.d.ts): egressFetch is the API.
export class Scan {
  constructor(eg, ep, kind) {
    this.eg = eg;
    this.ep = ep;
    this.buf = new Uint8Array(0); // the frame in progress is buf[:len]
    this.len = 0;
    this.state = kind;
    this.passing = false; // the core refused a chunk: the rest passes unread
    const members = { ingress: ep.format, provider: ep.format };
    if (eg.drop) members.upstream_message = 'drop';
    this.prefix = `{"op":"egress_scan",${JSON.stringify(members).slice(1, -1)},"state":"`;
  }

  feed(chunk) {
    return this.scan(chunk, false);
  }

  flush() {
    return this.scan(new Uint8Array(0), true);
  }

  scan(chunk, eof) {
    if (this.passing) return chunk;
    // A long frame's held bytes go to the core once, not once per chunk: only
    // their last TAIL go again with the chunk ("skip" leaves the rest out), and
    // the core asks for them all when it must read the frame.
    const skip = this.len >= LONG && !eof ? this.len - TAIL : 0;
    this.append(chunk);
    if (!this.len && !eof) return new Uint8Array(0);
    const data = this.buf.subarray(0, this.len);
    let out = this.invoke(data, skip, eof);
    if (out.length === RESEND.length && startsWith(out, RESEND)) out = this.invoke(data, 0, eof);
    if (startsWith(out, CLEAN)) { // no cuts: {"ok":{"cuts":[],"hold":N,"state":"..."}}
      const [hold, state] = dec.decode(out.subarray(CLEAN.length, out.length - 3)).split(',"state":"');
      this.state = state;
      return this.take(Number(hold));
    }
    const resp = JSON.parse(dec.decode(out));
    if (!resp.ok) { // not reached: the state is the core's own
      this.passing = true;
      return this.take(this.len);
    }
    const parts = [];
    let at = 0;
    for (const cut of resp.ok.cuts) {
      parts.push(data.subarray(at, cut.start));
      at = cut.end;
      if ('write' in cut) {
        parts.push(enc.encode(cut.write));
        report(this.eg, { endpoint: this.ep, envelope: cut.envelope, event: cut.event, data: cut.data });
      }
    }
    parts.push(data.subarray(at, resp.ok.hold));
    const res = parts.length === 1 ? parts[0].slice() : concat(parts);
    this.take(resp.ok.hold);
    this.state = resp.ok.state;
    return res;
  }

  // The core's answer for data (the held bytes, then the chunk) but its first skip bytes.
  invoke(data, skip, eof) {
    const input = data.subarray(skip);
    const head = enc.encode(`${this.prefix}${this.state}","now_ms":${Math.floor(this.eg.now())}${skip ? `,"skip":${skip}` : ''}${eof ? ',"eof":true' : ''},"input":`);
    return invokeBytes(concat([head, input, enc.encode(`,"raw_len":${input.length}}`)]));
  }

  // Adds chunk to the held bytes, the buffer grown by doubling (a long frame is not copied per chunk).
  append(chunk) {
    if (this.len + chunk.length > this.buf.length) {
      const buf = new Uint8Array(Math.max(2 * this.buf.length, this.len + chunk.length, 1024));
      buf.set(this.buf.subarray(0, this.len));
      this.buf = buf;
    }
    this.buf.set(chunk, this.len);
    this.len += chunk.length;
  }

  // The first n held bytes (a copy: the buffer is reused), no longer held.
  take(n) {
    const out = this.buf.slice(0, n);
    this.buf.copyWithin(0, n, this.len);
    this.len -= n;
    if (!this.len && this.buf.length > 1 << 16) this.buf = new Uint8Array(0); // a long frame's buffer is not kept
    return out;
  }
}

const LONG = 4096; // held bytes from which the front is left out
const TAIL = 16; // held bytes sent again with the chunk
const RESEND = enc.encode('{"ok":{"resend":true}}');
const CLEAN = enc.encode('{"ok":{"cuts":[],"hold":');

function startsWith(b, prefix) {
  if (b.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (b[i] !== prefix[i]) return false;
  return true;
}

function report(eg, ev) {
  if (!eg.onStreamError) {
    console.warn(`toolerr egress: an error event inside a stream: api=${ev.endpoint.api} code=${ev.envelope.code} retryable=${ev.envelope.retryable}`);
    return;
  }
  try {
    eg.onStreamError(ev);
  } catch (err) { // a reporter's own failure must not break the stream the SDK reads
    console.error('toolerr egress: onStreamError threw', err);
  }
}

function concat(parts) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
