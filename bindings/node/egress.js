// toolerr/egress: the core's egress ops as a fetch wrapper, for the official
// SDKs' `fetch` option (docs/egress.md, "For the in-process transports"; the
// gateway, gateway/, is the reference). Every decision is the core's
// (egress_request, egress_error); this module does I/O only.

// The package's own entry, so that Node loads toolerr.wasm and a browser
// bundle takes browser.js, as for `import 'toolerr'`.
import { ToolerrError, canonicalize, egressRequest, invoke } from 'toolerr';
import { readCauses, readText } from './causes.js';

const MAX_REQUEST_BYTES = 32 << 20; // the core's request bound (core.MaxRequestBytes): larger bodies go unread
const MAX_ERROR_BYTES = 1 << 20; // an upstream error body is read up to 1 MiB, as the gateway reads it
const MAX_EVENT_BYTES = 4 << 20; // a longer stream event passes unread, as in the gateway
const SUCCESS_HEAD_BYTES = 64; // a success is read this far to tell an error object in place of the answer (core.EgressSuccessHead)
// Upstream headers a rewritten response does not keep: its body is new, and
// fetch has already decoded it (length, encoding, type); the wait hints
// (RFC 9110, 10.2.3 Retry-After; the retry-after-ms the OpenAI and Anthropic
// SDKs read first) go whatever the op says: it gives the wait it read from
// them, and none for one it could not read (-5, abc, 1e9).
const DROPPED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'content-type', 'retry-after', 'retry-after-ms']);
const enc = new TextEncoder();
const dec = new TextDecoder();
// Events are read with a BOM kept (the default decoder strips one from every
// event): Events.event strips it from the stream's first only, as the
// WHATWG parser does.
const eventDec = new TextDecoder('utf-8', { ignoreBOM: true });

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
    if (isEventStream(resp.headers) && resp.body) return streamed(resp, new Events(eg, ep));
    // Gemini's streamGenerateContent without alt=sse: one JSON array,
    // element by element (a body that is no array passes unread).
    if (ep.api === 'stream_generate_content' && resp.body) return streamed(resp, new Elements(eg, ep));
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
    if (before < SUCCESS_HEAD_BYTES && n >= SUCCESS_HEAD_BYTES) gate = mayBeErrorObject(concat(parts).subarray(0, SUCCESS_HEAD_BYTES));
  }
  const held = concat(parts);
  if (ended && mayBeErrorObject(held.subarray(0, SUCCESS_HEAD_BYTES))) {
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

// Whether head, the first SUCCESS_HEAD_BYTES of a success (or all of a
// shorter one), may open an error object: "{" first, after a UTF-8 BOM and
// JSON white space, and "error" named in it. A cheap gate, looser than the
// core's rule, which decides on the whole body.
function mayBeErrorObject(head) {
  let i = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  while (i < head.length && (head[i] === 0x20 || head[i] === 0x09 || head[i] === 0x0a || head[i] === 0x0d)) i++;
  return head[i] === 0x7b && dec.decode(head).includes('"error"');
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
// its body passed through events (an Events or an Elements).
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

/**
 * Returns [end, resume]: the length of b's first complete event, its blank
 * line included, or 0 when b holds none yet, and the start of b's last
 * unfinished line, where a later call resumes. See the WHATWG HTML standard,
 * "Server-sent events" (an event ends at a blank line; lines end in CRLF, LF
 * or CR).
 */
function eventEnd(b, from) {
  let line = from;
  for (let i = from; i < b.length; i++) {
    const c = b[i];
    if (c !== 10 && c !== 13) continue;
    let next = i + 1;
    if (c === 13) {
      if (next === b.length) return [0, line]; // a CR at the end may be the first half of a CRLF
      if (b[next] === 10) next++;
    }
    if (i === line) return [next, 0]; // an empty line ends the event
    line = next;
    i = next - 1;
  }
  return [0, line];
}

/** An event's name and its data (data lines joined by LF). */
function parseEvent(raw) {
  let name = '';
  const data = [];
  for (const line of eventDec.decode(raw).split(/\r\n|\r|\n/)) {
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') name = value;
    else if (field === 'data') data.push(value);
  }
  return [name, data.join('\n')];
}

// A JSON escape of a letter of "error" (e, r, o): a member named
// "\u0065rror" is "error" to JSON.parse and to the SDK, though the text holds
// no "error".
const ESCAPED_ERROR_LETTER = /\\u00(?:65|72|6[fF])/;

// An error event: named "error" (Anthropic, the Responses API), or data that
// is a JSON object with an "error" object (Chat Completions and Gemini
// chunks), parsed only when it names an "error" member, in any escaping; as
// egress/stream.go tests it.
function isErrorEvent(name, data) {
  if (name === 'error') return true;
  if (!data.includes('"error"') && !ESCAPED_ERROR_LETTER.test(data)) return false;
  try {
    const v = JSON.parse(data);
    return v !== null && typeof v === 'object' && !Array.isArray(v) && v.error !== null && typeof v.error === 'object' && !Array.isArray(v.error);
  } catch {
    return false;
  }
}

// Splits a stream into complete events as they arrive; feed returns what is
// ready for the client.
class Events {
  constructor(eg, ep) {
    this.eg = eg;
    this.ep = ep;
    this.pending = new Uint8Array(0);
    this.scan = 0;
    this.skip = false;
    this.dropped = null; // with skip: the error op's reply for an error event too long to hold, written at its end
    this.emitted = false;
    this.started = false; // the first event has been read (a BOM is stripped from it only)
  }

  feed(chunk) {
    this.pending = this.pending.length ? concat([this.pending, chunk]) : chunk;
    const out = [];
    for (;;) {
      const [end, resume] = eventEnd(this.pending, this.scan);
      if (end === 0) {
        this.scan = resume;
        if (this.pending.length > MAX_EVENT_BYTES) { // too long to hold: it passes as it arrives
          // An error event (by the part held) is dropped instead, and at its
          // end replaced as an event cut short at the end of the stream is
          // (the Go StreamReader does the same): the upstream's text never passes.
          if (!this.skip) this.dropped = this.longError(this.pending);
          if (!this.dropped) out.push(this.pending);
          this.pending = new Uint8Array(0);
          this.scan = 0;
          this.skip = true;
        }
        return concat(out);
      }
      const ev = this.pending.subarray(0, end);
      this.pending = this.pending.subarray(end);
      this.scan = 0;
      const first = !this.started;
      this.started = true;
      if (this.skip) {
        out.push(this.dropped ? this.write(this.dropped, lineEnd(ev)) : ev);
        this.skip = false;
        this.dropped = null;
        continue;
      }
      out.push(this.event(ev, first));
    }
  }

  // flush returns what the client gets for the bytes after the last
  // complete event when the stream ends: an event with no blank line after
  // it, which a WHATWG parser discards and a line reader may not, so an
  // error event there is replaced as a complete one is (the Go StreamReader
  // does the same); anything else, and the rest of an event too long to
  // read, passes as it came.
  flush() {
    const rest = this.pending;
    this.pending = new Uint8Array(0);
    this.scan = 0;
    if (this.dropped) {
      const rep = this.dropped;
      this.dropped = null;
      return this.write(rep, lineEnd(rest));
    }
    if (!rest.length || this.skip) return rest;
    const first = !this.started;
    this.started = true;
    return this.event(rest, first);
  }

  // event returns what the client gets for raw, one complete event (first:
  // the stream's first). The first is read without one leading UTF-8 BOM,
  // which the WHATWG parser ignores ("One leading U+FEFF BYTE ORDER MARK
  // character must be ignored if any are present",
  // https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream),
  // or "\ufeffdata" would hide an error event; a passed event keeps it.
  event(raw, first) {
    const bom = first && raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
    const [name, data] = parseEvent(bom ? raw.subarray(3) : raw);
    if (!isErrorEvent(name, data)) {
      if (data.length && name !== 'ping') this.emitted = true;
      return raw;
    }
    const rep = this.reply({ event: name, data });
    return rep ? this.write(rep, lineEnd(raw)) : raw;
  }

  // longError returns the error op's reply for held, the first
  // MAX_EVENT_BYTES (about) of an event too long to hold, its last line
  // cut, when the core tells it an error event (the op's
  // upstream.sse_event.head; the reply is read without its data), else null.
  longError(held) {
    const bom = !this.started && held.length >= 3 && held[0] === 0xef && held[1] === 0xbb && held[2] === 0xbf;
    this.started = true;
    const rep = this.reply({ head: eventDec.decode(bom ? held.subarray(3) : held) });
    return rep?.pass ? null : rep;
  }

  // reply returns the error op's reply for an event ({event, data}, or
  // {head} for one too long to hold), null when the op refused it.
  reply(event) {
    try {
      return invoke(errorRequest(this.eg, this.ep, { sse_event: { ...event, content_emitted: this.emitted } }));
    } catch (err) {
      if (err instanceof ToolerrError) return null;
      throw err;
    }
  }

  // write returns rep's event, its lines ended by eol, and reports it.
  write(rep, eol) {
    const text = canonicalize(rep.data);
    report(this.eg, { endpoint: this.ep, envelope: rep.envelope, event: rep.event, data: text });
    // Written with the line end of the event it replaces: a reader that
    // splits on one kind only (go-genai splits on "\n\n" before "\r\n\r\n")
    // would otherwise join a CRLF stream's previous event to it.
    return enc.encode(`${rep.event ? `event: ${rep.event}${eol}` : ''}data: ${text}${eol}${eol}`);
  }
}

// Splits Gemini's JSON-array stream (streamGenerateContent without alt=sse:
// "[{...}\r\n,{...}]") into its elements as they arrive, as the Go
// egress.NewArrayStreamReader does (docs/egress.md, "JSON-array streams"):
// what lies outside the elements passes as it arrives, each element once
// complete, an error element (isErrorEvent's data test) replaced by the
// error op's object for a data-only event of that data. An element past
// MAX_EVENT_BYTES passes as it arrives, unread, unless its head opens an
// "error" object: then it is dropped to its end and replaced there. A body
// whose first byte (after white space and a BOM) is not "[" passes unread.
class Elements {
  constructor(eg, ep) {
    this.eg = eg;
    this.ep = ep;
    this.state = 0; // 0: before the array opened, 1: inside it (or after it), 2: no array, passed unread
    this.seen = 0; // bytes scanned before the array opened
    this.bom = 0; // how many of them are a leading BOM's
    this.depth = 0; // nesting of arrays and objects, the outer array counted
    this.inStr = false;
    this.esc = false;
    this.elem = false; // inside an element
    this.base = 0; // the depth the element began at
    this.held = []; // the element's bytes so far
    this.heldLen = 0;
    this.skip = false; // inside an element too long to hold: passed to its end
    this.dropped = null; // inside an error element too long to hold: dropped, then replaced by this
    this.emitted = false;
  }

  feed(b) {
    const out = [];
    let from = 0;
    for (let i = 0; i < b.length; i++) {
      const c = b[i];
      if (this.state === 2) break;
      if (this.state === 0) {
        if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
          // white space
        } else if (this.bom === this.seen && this.bom < 3 && c === [0xef, 0xbb, 0xbf][this.bom]) {
          this.bom++;
        } else if (c === 0x5b) {
          this.state = 1;
          this.depth = 1;
        } else {
          this.state = 2;
          break;
        }
        this.seen++;
        continue;
      }
      if (this.inStr) {
        if (this.esc) this.esc = false;
        else if (c === 0x5c) this.esc = true;
        else if (c === 0x22) this.inStr = false;
        continue;
      }
      if (c === 0x22) {
        this.inStr = true;
      } else if (c === 0x7b || c === 0x5b) {
        if (!this.elem && (this.depth === 1 || (c === 0x7b && this.depth === 0))) {
          out.push(b.subarray(from, i));
          from = i;
          this.elem = true;
          this.base = this.depth;
        }
        this.depth++;
      } else if (c === 0x7d || c === 0x5d) {
        if (this.depth > 0) this.depth--;
        if (this.elem && this.depth === this.base) {
          out.push(this.end(b.subarray(from, i + 1)));
          from = i + 1;
        }
      }
    }
    const rest = b.subarray(from);
    if (!this.elem) out.push(rest);
    else out.push(this.hold(rest));
    return concat(out);
  }

  // hold takes the next bytes of an unfinished element and returns what
  // passes of them now.
  hold(b) {
    if (this.dropped) return new Uint8Array(0);
    if (this.skip) return b;
    this.held.push(b);
    this.heldLen += b.length;
    if (this.heldLen <= MAX_EVENT_BYTES) return new Uint8Array(0);
    const held = concat(this.held);
    this.held = [];
    this.heldLen = 0;
    this.dropped = this.longError(held);
    if (this.dropped) return new Uint8Array(0);
    this.skip = true;
    this.emitted = true;
    return held;
  }

  // end returns what the client gets for the element that ends with tail
  // (empty: the stream ended inside it).
  end(tail) {
    const dropped = this.dropped;
    const skip = this.skip;
    const raw = skip || dropped ? null : concat([...this.held, tail]);
    this.elem = false;
    this.skip = false;
    this.dropped = null;
    this.held = [];
    this.heldLen = 0;
    if (dropped) return this.write(dropped);
    if (skip) return tail;
    const rep = this.errorReply(raw);
    if (rep) return this.write(rep);
    this.emitted = true;
    return raw;
  }

  // errorReply returns the error op's reply for raw, a whole element, when
  // it is an error element, else null. One JSON.parse refuses (cut by the
  // stream's end) is told by its head, read without its data, as one too
  // long to hold is.
  errorReply(raw) {
    const data = eventDec.decode(raw);
    if (isErrorEvent('', data)) return this.reply({ event: '', data });
    if (!data.includes('"error"') && !ESCAPED_ERROR_LETTER.test(data)) return null;
    try {
      JSON.parse(data);
      return null;
    } catch {
      return this.longError(raw);
    }
  }

  flush() {
    return this.elem ? this.end(new Uint8Array(0)) : new Uint8Array(0);
  }

  // longError returns the error op's reply for held, the first
  // MAX_EVENT_BYTES (about) of an element too long to hold, when it opens an
  // "error" object, else null. The op's upstream.sse_event.head reads it as a
  // data line: its CR and LF (JSON white space there, or bytes a JSON reader
  // refuses) become spaces, so that the head is one line, and the answer is
  // the Go core.EgressElementHead's.
  longError(held) {
    const head = eventDec.decode(held).replace(/[\r\n]/g, ' ');
    const rep = this.reply({ head: `data: ${head}` });
    return rep?.pass ? null : rep;
  }

  reply(event) {
    return Events.prototype.reply.call(this, event);
  }

  // write returns rep's error object, in place of an element, and reports it.
  write(rep) {
    const text = canonicalize(rep.data);
    report(this.eg, { endpoint: this.ep, envelope: rep.envelope, event: rep.event, data: text });
    return enc.encode(text);
  }
}

// The line end of raw, one complete event: the one that ends its last line.
function lineEnd(raw) {
  const n = raw.length;
  if (n >= 2 && raw[n - 2] === 13 && raw[n - 1] === 10) return '\r\n';
  return n >= 1 && raw[n - 1] === 13 ? '\r' : '\n';
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
