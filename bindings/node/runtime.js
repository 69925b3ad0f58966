// The toolerr runtime for JavaScript: run one tool call with retries, the
// per-tool breaker, the run's budget and loop guard. Every decision is the
// core's "step" op (docs/resilience.md, "The step op"); this file only reads
// the clock, draws jitter, sleeps, honours AbortSignal, moves bytes to and
// from the stores and reports the core's decision records, so JavaScript
// decides exactly as Go, Python and Rust do (conformance/runtime/*.json).
// It uses no Node-only module, so it runs in browsers too.

import { invokeText, classifyException, classifyRequestText, classifyResponse, ToolerrError } from './core.js';
import { stringify } from './json.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
// The JSON literal of a string (null or undefined: 'null').
const literalOf = (v) => (v === null || v === undefined ? 'null' : JSON.stringify(v));
// The JSON text of a draw for a failure event: JSON.stringify's (a NaN or
// an infinity is null), and null for what it writes nothing for (undefined,
// a function, a symbol) or throws on (a BigInt, a cycle), as the Python and
// Rust executors write them, so that the step op refuses every draw outside
// [0, 1) in the same words: undefined was sent as the text undefined, which
// is no JSON, and refused as such.
const drawText = (v) => {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return 'null';
  }
};
const bytes = (v) => (v === null || v === undefined ? null : typeof v === 'string' ? enc.encode(v) : v);
const sameBytes = (a, b) => {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

// The executor's own way into a MemoryStore (not part of the Store port):
// the stored value as text and as the JSON literal a step event carries it
// in, and a compare-and-swap of texts answering with the event's text, so a
// call on the in-process store neither encodes, decodes nor escapes the
// state it moves (Go's executor reads its memory store without a copy too).
const memoryLoad = Symbol('toolerr.memoryLoad');
// The most stored bytes a step event carries (64 KiB; a breaker state is
// under 200). Longer ones, never a breaker state, go as a text that names
// their length (oversized), the same in every binding: carried whole, a
// value past the core's request limit (32 MiB; Redis holds up to 512 MiB)
// made every call of the tool throw INVALID_INPUT, on every replica, and
// the key was never repaired.
const MAX_STORED_BYTES = 64 << 10;
const oversized = (n) => `toolerr: ${n} stored bytes, more than a breaker state takes (${MAX_STORED_BYTES})`;
// Whether text t's UTF-8 is longer than MAX_STORED_BYTES (encoded only where
// its length alone does not tell: a UTF-16 unit is 1 to 3 bytes).
const tooLong = (t) => t.length > MAX_STORED_BYTES || (t.length * 3 > MAX_STORED_BYTES && enc.encode(t).length > MAX_STORED_BYTES);
const memoryCas = Symbol('toolerr.memoryCas');

/**
 * The in-process store: a Map of bytes. Every store implements this byte-level
 * compare-and-swap port: load(key) -> bytes or null; compareAndSwap(key, old,
 * next) stores next only if the key holds exactly old (null: nothing) and
 * returns {swapped, current} (current: what it holds when not swapped).
 * Methods may return promises (a Redis store does).
 */
export class MemoryStore {
  // key -> {bytes, text, exact, literal}: the stored bytes, their UTF-8
  // text, whether the bytes are that text's UTF-8 exactly (not for bytes
  // that are no UTF-8, which a text never matches), and the text's JSON
  // string literal (bytes and literal made when first asked).
  #data = new Map();

  static #entry(bytes, text, exact = true) { return { bytes, text, exact, literal: undefined }; }

  static #bytes(e) { return e === undefined ? null : (e.bytes ??= enc.encode(e.text)); }

  /** Returns the bytes stored under key, or null. */
  load(key) { return MemoryStore.#bytes(this.#data.get(key)); }

  /** Stores next under key if it holds exactly old; else returns what it holds. */
  compareAndSwap(key, old, next) {
    const e = this.#data.get(key);
    if (!sameBytes(MemoryStore.#bytes(e), bytes(old))) return { swapped: false, current: MemoryStore.#bytes(e) };
    const b = typeof next === 'string' ? enc.encode(next) : Uint8Array.from(next);
    let t, exact = true;
    try {
      t = strict.decode(b);
    } catch {
      t = dec.decode(b);
      exact = false;
    }
    this.#data.set(key, MemoryStore.#entry(b, t, exact));
    return { swapped: true, current: null };
  }

  // [text, literal] of the value under key ([null, 'null'] for none); raw
  // (a call's, see textOf) maps the text of bytes that are no UTF-8, or
  // longer than MAX_STORED_BYTES, back to them.
  [memoryLoad](key, raw) {
    const e = this.#data.get(key);
    if (e === undefined) return [null, 'null'];
    if (e.bytes ? e.bytes.length > MAX_STORED_BYTES : tooLong(e.text)) {
      const b = MemoryStore.#bytes(e);
      raw.set(oversized(b.length), b);
      return [oversized(b.length), JSON.stringify(oversized(b.length))];
    }
    if (!e.exact) raw.set(e.text, e.bytes);
    else if (raw.size) raw.delete(e.text);
    return [e.text, e.literal ??= JSON.stringify(e.text)];
  }

  // compareAndSwap of texts (old null: holds nothing), answering with the
  // cas event's text (raw: as for memoryLoad).
  [memoryCas](key, old, next, raw) {
    const e = this.#data.get(key);
    if (e === undefined ? old !== null : !e.exact || e.text !== old) {
      return `{"kind":"cas","swapped":false,"current":${e === undefined ? 'null' : this[memoryLoad](key, raw)[1]}}`;
    }
    this.#data.set(key, MemoryStore.#entry(undefined, next));
    return '{"kind":"cas","swapped":true,"current":null}';
  }
}

/** One agent run's step/token/time budget ({steps?, tokens?, wall_ms?}), shared by its calls. */
export class Budget {
  constructor(limits) { this.limits = { ...limits }; this.state = null; }
}

/**
 * Milliseconds as the step op takes them: a number rounded up to a whole
 * one (0.001 is 1, never 0); anything else as it is, for the core to refuse.
 */
function wholeMs(ms) { return typeof ms === 'number' ? Math.ceil(ms) : ms; }

/**
 * One agent run's loop guard: a call that failed threshold times in a row with the same args is refused.
 * threshold goes to the core as it is: one that is not a whole number from 1 (0 included) is refused
 * with INVALID_INPUT at loop.threshold on the first call.
 */
export class LoopGuard {
  constructor(threshold = 3) { this.threshold = threshold; this.state = null; }
}

/** Throw it from a tool to hand the executor your own envelope (e.g. from classifyResponse). */
export class ToolFailure extends Error {
  constructor(envelope) {
    super(`${envelope.code}: ${envelope.message}`);
    this.name = 'ToolFailure';
    this.envelope = envelope;
  }
}

/**
 * Returns the envelope of a tool's failure, as the executor reports it: an
 * error with an .envelope (a ToolFailure, a ToolerrError) keeps its own;
 * anything else goes to classifyResponse as the tool's failure (an SDK's
 * status error by its status, headers and body; other errors through
 * classifyException). tool names the tool in details (omitted when empty).
 */
export function failureEnvelope(err, tool) {
  const own = ownEnvelope(err);
  if (own) return own;
  // A throw that cannot be read whole (a getter or a Proxy that throws, an
  // object without toString, a status outside 100-599, a body JSON.stringify
  // cannot write, a message past the core's request limit) is classified
  // with less of it, never thrown out of the executor: without its HTTP
  // members, then by its type alone.
  const t = tool || undefined;
  try {
    return classifyResponse(err, { source: 'tool', tool: t });
  } catch { /* read less of it */ }
  try {
    return classifyException(err, { tool: t });
  } catch { /* its type alone */ }
  let type = typeof err;
  try {
    type = String(err.constructor.name) || type;
  } catch { /* typeof it */ }
  return classifyException({ constructor: { name: type }, message: '' }, { tool: t });
}

// ownEnvelope returns the envelope err carries (a ToolFailure, a
// ToolerrError), else undefined (also when reading it throws).
function ownEnvelope(err) {
  try {
    return err?.envelope && typeof err.envelope.code === 'string' ? err.envelope : undefined;
  } catch {
    return undefined;
  }
}

// storeErrorText is the event's text of a store call that threw e (its
// message, or its type when reading that throws too).
function storeErrorText(e) {
  let message;
  try {
    message = String(e?.message ?? e);
  } catch {
    message = typeof e;
  }
  return `{"kind":"store_error","message":${JSON.stringify(message)}}`;
}

/** How one call ended: value on success, else error (the envelope for the model). */
export class CallResult {
  constructor(value, error, attempts, cause) {
    this.ok = !error;
    this.value = value;
    this.error = error ?? null;
    this.attempts = attempts;
    this.cause = cause ?? null;
  }

  /** The outcome to serialize: the envelope, or the value as text (a string), JSON, or empty. */
  outcome(callId, name) {
    if (this.error) return { callId, name, error: this.error };
    if (this.value === undefined || this.value === null) return { callId, name, result: {} };
    return { callId, name, result: typeof this.value === 'string' ? { text: this.value } : { json: this.value } };
  }
}

function sleepFor(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(signal.reason); return; }
    const onAbort = () => { clearTimeout(timer); reject(signal.reason); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// An attempt's deadline: a signal that aborts after ms with a TimeoutError,
// as AbortSignal.timeout does, but on a timer that keeps the process alive
// while the call is pending (AbortSignal.timeout's does not: a process whose
// only pending work is a call waiting on its deadline would exit instead of
// returning TIMEOUT) and is cleared when the attempt ends.
function deadline(ms) {
  const c = new AbortController();
  const timer = setTimeout(() => c.abort(new DOMException('The operation timed out.', 'TimeoutError')), ms);
  return { signal: c.signal, clear: () => clearTimeout(timer) };
}

const logLevel = { debug: 'debug', info: 'info', warn: 'warn' };
// The events that may carry a load made ahead ("loaded", docs/resilience.md).
const loadsAhead = new Set(['start', 'success', 'failure', 'slept']);
// held for a cas that swapped (what an on_swapped decided ahead holds for).
const SWAPPED = Symbol('swapped');
const CAS_SWAPPED = '{"kind":"cas","swapped":true,';
// An event as the runtime sends it: its kind, and its JSON text without the
// closing brace (a load made ahead is appended before it).
const START = { kind: 'start', text: '{"kind":"start"' };
const SUCCESS = { kind: 'success', text: '{"kind":"success"' };
const SLEPT = { kind: 'slept', text: '{"kind":"slept"' };
const CANCELLED = { kind: 'cancelled', text: '{"kind":"cancelled"' };
const DEADLINE = { kind: 'cancelled', text: '{"kind":"cancelled","cause":"deadline"' };
// The stored bytes v (or text) as the text a step event carries them in.
// A step carries them as a JSON string, which holds text only (RFC 8259,
// section 8.1): bytes that are no UTF-8 go as their text with U+FFFD for each
// bad sequence (the core finds no breaker state in it and repairs the key),
// and so do bytes that decode to a text whose UTF-8 is other bytes (a
// leading BOM, which TextDecoder drops). raw, one call's Map, maps such a
// text back to the bytes it was read from, so that the compare-and-swap from
// it (casOld) compares against the bytes the store holds, not the text's
// UTF-8, which no store holds.
// So do stored bytes longer than MAX_STORED_BYTES, as the text oversized
// names them by.
const textOf = (v, raw) => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') {
    if (tooLong(v)) {
      const b = enc.encode(v);
      raw.set(oversized(b.length), b);
      return oversized(b.length);
    }
    if (raw.size) raw.delete(v);
    return v;
  }
  if (v.length > MAX_STORED_BYTES) {
    raw.set(oversized(v.length), v);
    return oversized(v.length);
  }
  const t = dec.decode(v);
  if ((t.includes('\uFFFD') || v[0] === 0xef) && !sameBytes(enc.encode(t), v)) raw.set(t, v);
  else if (raw.size) raw.delete(t);
  return t;
};
// The bytes a cas action compares against: the stored bytes its old text was
// read from (raw, see textOf), else that text's UTF-8; null for none.
const casOld = (old, raw) => (old === null ? null : raw.get(old) ?? enc.encode(old));
// The store's answers as the step events' JSON text (raw: see textOf).
const loadedText = (v, raw) => `{"kind":"loaded","value":${literalOf(textOf(v, raw))}}`;
// A load made ahead: its event's text, and the stored value as its JSON
// literal ('null': none; undefined: the store failed).
const loadedAhead = (v, raw) => {
  const literal = literalOf(textOf(v, raw));
  return [`{"kind":"loaded","value":${literal}}`, literal];
};
const failedAhead = (e) => [storeErrorText(e), undefined];
const thenable = (v) => typeof v?.then === 'function';
const casText = (r, raw) => `{"kind":"cas","swapped":${!!r.swapped},"current":${literalOf(textOf(r.current, raw))}}`;

// valueEnd returns where the JSON object or array starting at s[i] ends
// (strings skipped with their escapes), or -1.
function valueEnd(s, i) {
  let depth = 0;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) { // a string: to its closing quote
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    } else if (depth === 0) {
      return -1; // not an object or array
    }
  }
  return -1;
}

// member reads the value of the member named key at s[i] (its ',"key":'),
// returning [value, end], or [undefined, i] when the member there is another.
function member(s, i, key) {
  if (i < 0 || !s.startsWith(key, i)) return [undefined, i];
  const at = i + key.length, end = valueEnd(s, at);
  return end < 0 ? [undefined, -1] : [JSON.parse(s.slice(at, end)), end];
}

// rawMember is member keeping the value as its JSON text.
function rawMember(s, i, key) {
  if (i < 0 || !s.startsWith(key, i)) return [undefined, i];
  const at = i + key.length, end = valueEnd(s, at);
  return end < 0 ? [undefined, -1] : [s.slice(at, end), end];
}

// readReplica reads the replica member's text, {"down_until_ms": n, "state":
// string or null} in canonical JSON, as [downUntilMs, the state's JSON
// literal] (a quote inside the string is escaped, so the first ',"state":'
// is the member).
function readReplica(t) {
  const j = t.indexOf(',"state":');
  if (t.startsWith('{"down_until_ms":') && j > 0 && t.endsWith('}')) return [Number(t.slice(17, j)), t.slice(j + 9, -1)];
  const o = JSON.parse(t);
  return [o.down_until_ms ?? 0, literalOf(o.state)];
}

// literalEnd returns where the JSON string or null starting at s[i] ends, or -1.
function literalEnd(s, i) {
  if (s.startsWith('null', i)) return i + 4;
  if (s.charCodeAt(i) !== 0x22) return -1;
  for (i++; i < s.length; i++) {
    const d = s.charCodeAt(i);
    if (d === 0x5c) i++;
    else if (d === 0x22) return i + 1;
  }
  return -1;
}

// The members an answer decided ahead comes in, named after the event the
// action expects (one at most), in canonical key order.
const AHEAD = [',"on_slept":', ',"on_success":', ',"on_swapped":'];

// readStep reads the members the runtime uses of the step answer whose
// object text starts at t[i] (the answer's "ok", or an answer decided ahead
// inside one), returning them with end, where the object ends (close:
// where its closing brace is when known, else -1). The text is
// canonical JSON (RFC 8785), so its members come in key order (action,
// budget?, decisions, if_loaded?, loop?, on_slept? | on_success? |
// on_swapped?, replica?, stands?, state). The action is kept as its text
// (actionText: parsed when applied), the state as the core's text (sent
// back as it is, never parsed), the replica too (read when the answer is
// applied), if_loaded and stands' if_loaded as their JSON literals, and the
// decision records as their text (recordsText: they are flat objects, so
// the list ends at the first '],"', a quote inside a string being escaped;
// read for each call the answer is applied to), or read when records is
// set. The answer decided ahead inside it is read in the same pass (ahead:
// readStep's of it), so a chained answer's text is scanned once, not again
// at each level it is applied at. Returns null for any other shape.
function readStep(t, i, records, close) {
  if (!t.startsWith('{"action":', i)) return null;
  const r = { actionText: '', action: undefined, records: null, recordsText: '', state: '', budget: undefined,
    ifLoaded: undefined, loop: undefined, ahead: undefined, replica: undefined, stands: undefined, end: -1,
    sharedAction: undefined };
  const a = i + 10;
  i = valueEnd(t, a);
  if (i < 0) return null;
  r.actionText = t.slice(a, i);
  [r.budget, i] = member(t, i, ',"budget":');
  if (i < 0 || !t.startsWith(',"decisions":', i)) return null;
  const d = i + 13;
  if (records) [r.records, i] = member(t, i, ',"decisions":');
  else i = t.indexOf('],"', d) + 1 || -1;
  if (i < 0) return null;
  r.recordsText = t.slice(d, i);
  if (t.startsWith(',"if_loaded":', i)) {
    const end = literalEnd(t, i + 13);
    if (end < 0) return null;
    r.ifLoaded = t.slice(i + 13, end);
    i = end;
  }
  [r.loop, i] = member(t, i, ',"loop":');
  for (const m of AHEAD) {
    if (i >= 0 && t.startsWith(m, i)) {
      r.ahead = readStep(t, i + m.length, false, -1);
      if (r.ahead === null) return null;
      i = r.ahead.end;
      break;
    }
  }
  [r.replica, i] = rawMember(t, i, ',"replica":');
  if (i >= 0 && t.startsWith(',"stands":{"if_loaded":', i)) {
    const end = literalEnd(t, i + 23);
    if (end < 0 || t.charCodeAt(end) !== 0x7d) return null;
    r.stands = t.slice(i + 23, end);
    i = end + 1;
  }
  if (i < 0 || !t.startsWith(',"state":', i)) return null;
  const end = close >= 0 ? close : valueEnd(t, i + 9);
  if (end < 0 || t.charCodeAt(end) !== 0x7d) return null;
  r.state = t.slice(i + 9, end);
  r.end = end + 1;
  return r;
}

// appliedAction returns the action of ahead (readStep's of an answer decided
// ahead) for a call it is applied to, read from its text: once per answer
// when it carries no envelope (kept frozen as sharedAction: the success
// decided ahead inside a start answer kept is applied to every successful
// call, and an action without an envelope never leaves the executor), else
// read again for each call, whose CallResult gets the envelope as its own.
function appliedAction(ahead) {
  if (ahead.sharedAction !== undefined) return ahead.sharedAction;
  const a = JSON.parse(ahead.actionText);
  if (a.error === undefined) ahead.sharedAction = Object.freeze(a);
  return a;
}

// readWhole is readStep for a value parsed whole (an answer of another
// shape), its answer decided ahead read whole too.
function readWhole(o, records) {
  const ahead = o.on_success ?? o.on_swapped ?? o.on_slept;
  return { actionText: JSON.stringify(o.action), action: o.action, records: records ? o.decisions : null,
    recordsText: JSON.stringify(o.decisions), state: JSON.stringify(o.state), budget: o.budget,
    ifLoaded: 'if_loaded' in o ? literalOf(o.if_loaded) : undefined, loop: o.loop,
    ahead: ahead && readWhole(ahead, false), replica: o.replica && JSON.stringify(o.replica),
    stands: o.stands && 'if_loaded' in o.stands ? literalOf(o.stands.if_loaded) : undefined, end: -1,
    sharedAction: undefined };
}

// readAnswer reads one step answer (readStep); an answer of any other
// shape, an error included, is read whole.
function readAnswer(s, records) {
  if (s.startsWith('{"ok":{"action":') && s.endsWith('}}')) {
    const r = readStep(s, 6, records, s.length - 2);
    if (r) {
      r.action = JSON.parse(r.actionText);
      return r;
    }
  }
  const resp = JSON.parse(s);
  if ('error' in resp) throw new ToolerrError(resp.error);
  return readWhole(resp.ok, records);
}

/**
 * Runs tool calls under the core's decisions. An EventTarget: every decision
 * record is also dispatched as a 'decision' CustomEvent (detail: the record).
 *
 * Options: store (shared between replicas; default this executor's memory),
 * storeBackoffMs (how long a failed store is left alone, default 1000;
 * meanwhile the breaker decides on the last state this executor saw there),
 * keyPrefix ("toolerr:breaker:"), retry ({max_attempts, base_ms, cap_ms,
 * max_wait_ms}), breaker ({failure_threshold, open_ms, success_threshold}),
 * timeoutMs (one call, retries and sleeps included), budget, loopGuard (the
 * run's), classify(err, tool) -> envelope (default classifyResponse; a
 * ToolFailure, or any error with .envelope, keeps its own), onDecision(record),
 * console (true or a console-like object: logs "toolerr decision <json>" at
 * the record's level), clock() -> ms, sleep(ms, signal) -> Promise, draw() in [0, 1).
 */
export class Executor extends EventTarget {
  #shared;
  #downUntilMs = 0; // the step op's replica state: one back-off window,
  #seen = new Map(); // and per breaker key the last state seen in the store, as the JSON literal a request carries
  // per tool: {head: its requests' constant members as JSON text without the
  // closing brace, key: its breaker key, stood: the last start answer that
  // stood (readStep's, with stands), or null}
  #heads = new Map();
  #config = {};
  #o;
  #listened = false; // whether a 'decision' listener was ever added (no event is built before)

  constructor(options = {}) {
    super();
    this.#o = options;
    this.#shared = options.store ?? new MemoryStore();
    if (options.keyPrefix !== undefined) this.#config.key_prefix = options.keyPrefix;
    if (options.retry) this.#config.policy = { ...options.retry };
    if (options.breaker) this.#config.settings = { ...options.breaker };
    // Passed to the core, which refuses a 0, a negative, a NaN or an
    // infinity (both written as null), a null or a non-number with
    // INVALID_INPUT at its path; a fraction rounds up (0.001 is 1 ms, never 0).
    if (options.timeoutMs !== undefined) this.#config.timeout_ms = wholeMs(options.timeoutMs);
    if (options.storeBackoffMs !== undefined) this.#config.store_backoff_ms = wholeMs(options.storeBackoffMs);
    this.budget = options.budget ?? null;
    this.loopGuard = options.loopGuard ?? null;
  }

  /** EventTarget's addEventListener; a 'decision' listener turns the decision events on. */
  addEventListener(type, listener, options) {
    if (type === 'decision') this.#listened = true;
    super.addEventListener(type, listener, options);
  }

  #key(tool) { return (this.#config.key_prefix ?? 'toolerr:breaker:') + tool; }

  #step(head, key, tokens, state, event) {
    // The request's text: the tool's constant members, the state as the
    // core wrote it, the event's text, the replica's, budget's and loop's.
    let req = `${head},"state":${state},"event":${event},"now_ms":${(this.#o.clock ?? Date.now)()}`
      + `,"replica":{"down_until_ms":${this.#downUntilMs},"state":${this.#seen.get(key) ?? 'null'}}`;
    const b = this.budget, g = this.loopGuard;
    if (b) req += `,"budget":${JSON.stringify({ limits: b.limits, state: b.state, ...(tokens ? { charge: { tokens } } : {}) })}`;
    if (g) req += `,"loop":${JSON.stringify({ threshold: g.threshold, state: g.state })}`;
    const listened = !!(this.#o.onDecision || this.#listened || this.#o.console);
    // synchronous: no other call of this thread runs between read and write
    const r = readAnswer(invokeText(req + '}'), listened);
    if (b && r.budget) b.state = r.budget;
    if (g && r.loop) g.state = r.loop;
    if (r.replica) this.#keepReplica(key, r.replica);
    return r;
  }

  // Keeps the replica state a step answered (its text).
  #keepReplica(key, text) {
    const [down, seen] = readReplica(text);
    this.#downUntilMs = down;
    this.#seen.set(key, seen);
  }

  /**
   * The breaker state of tool this executor last saw in its store (or, while
   * the store fails, made from it), as its canonical bytes, or null.
   */
  replicaState(tool) {
    const s = JSON.parse(this.#seen.get((this.#config.key_prefix ?? 'toolerr:breaker:') + tool) ?? 'null');
    return s == null ? null : enc.encode(s);
  }

  #report(rec) {
    this.#o.onDecision?.(rec);
    if (this.#listened) this.dispatchEvent(new CustomEvent('decision', { detail: rec }));
    const con = this.#o.console === true ? globalThis.console : this.#o.console;
    if (con) (con[logLevel[rec.level]] ?? con.log).call(con, `toolerr decision ${JSON.stringify(rec)}`);
  }

  // The failure event of err. Without an envelope of its own or a classify
  // option, it carries the request failureEnvelope sends first (classify,
  // docs/resilience.md), classified inside the step: one crossing instead
  // of two, the same envelope; then retry() is the event with the envelope
  // classified here, for a core that refuses that request.
  #failure(err, tool) {
    const own = ownEnvelope(err);
    const draw = drawText((this.#o.draw ?? Math.random)());
    const failed = (env) => `{"kind":"failure","error":${JSON.stringify(env)},"draw":${draw}`;
    if (!own && !this.#o.classify) {
      let req;
      try {
        req = classifyRequestText(err, { source: 'tool', tool: tool || undefined });
      } catch { /* classified here, with its fallbacks */ }
      if (req !== undefined) {
        return { kind: 'failure', text: `{"kind":"failure","classify":${req},"draw":${draw}`, retry: () => failed(failureEnvelope(err, tool)) };
      }
    }
    return { kind: 'failure', text: failed(own ?? (this.#o.classify ?? failureEnvelope)(err, tool)) };
  }

  // The store's answer to a load or cas action, as the event's text:
  // synchronous for a store that answers synchronously (MemoryStore), else
  // a promise of it. raw: the call's, see textOf.
  #store(action, raw) {
    const store = this.#shared;
    try {
      if (action.kind === 'load') {
        if (store[memoryLoad]) return `{"kind":"loaded","value":${store[memoryLoad](action.key, raw)[1]}}`;
        const v = store.load(action.key);
        return thenable(v) ? v.then((v) => loadedText(v, raw)).catch(storeErrorText) : loadedText(v, raw);
      }
      // A cas from a text read from bytes that are no UTF-8 compares bytes.
      if (store[memoryCas] && !(raw.size && raw.has(action.old))) {
        return store[memoryCas](action.key, action.old, action.new, raw);
      }
      const r = store.compareAndSwap(action.key, casOld(action.old, raw), enc.encode(action.new));
      return thenable(r) ? r.then((r) => casText(r, raw)).catch(storeErrorText) : casText(r, raw);
    } catch (e) {
      return storeErrorText(e);
    }
  }

  // A load of key made ahead (loadedAhead, failedAhead), or a promise of it.
  // raw: the call's, see textOf.
  #loadAhead(key, raw) {
    const store = this.#shared;
    try {
      if (store[memoryLoad]) {
        const literal = store[memoryLoad](key, raw)[1];
        return [`{"kind":"loaded","value":${literal}}`, literal];
      }
      const v = store.load(key);
      return thenable(v) ? v.then((v) => loadedAhead(v, raw)).catch(failedAhead) : loadedAhead(v, raw);
    } catch (e) {
      return failedAhead(e);
    }
  }

  // The answer the core decided ahead for the event the last action
  // expected (on_success, on_swapped, on_slept: readStep's of it, read with
  // the answer it came in), when it holds:
  // the event came as expected (a success or a slept whose load made ahead
  // answered exactly if_loaded: held is that load's JSON literal; a cas that
  // swapped: held is SWAPPED) and the replica is still {"down_until_ms": 0,
  // "state": if_loaded}; the replica then takes the answer's, as a step's
  // (docs/resilience.md, "The step op"). Else null (the step is sent). The
  // literals compared are the core's canonical writing of if_loaded and of
  // the replica's state, so equal literals are equal strings, and one
  // JavaScript wrote otherwise only sends the step. Its action and records
  // are read from their text here, so each call gets its own objects (an
  // answer decided ahead inside a start answer kept is applied to many).
  #decided(key, ahead, held) {
    if (held === undefined || this.#downUntilMs !== 0) return null;
    if ((held !== SWAPPED && held !== ahead.ifLoaded) || (this.#seen.get(key) ?? 'null') !== ahead.ifLoaded) return null;
    if (ahead.replica) this.#keepReplica(key, ahead.replica);
    const listened = !!(this.#o.onDecision || this.#listened || this.#o.console);
    return { action: appliedAction(ahead), records: listened ? JSON.parse(ahead.recordsText) : null,
      state: ahead.state, ahead: ahead.ahead };
  }

  // The start answer kept for a tool (stood: the last start answer that
  // stood), when it holds for this start: the request would be the one it
  // stood for but for now_ms and the event's args (docs/resilience.md, "A
  // start answer that stands"): no budget and no loop guard (the constant
  // head, its config included, is the tool's, and the executor sends no
  // caller deadline), the load made ahead answered exactly its if_loaded
  // (held: that load's JSON literal; undefined: none was made, or the store
  // failed) and the replica is {"down_until_ms": 0, "state": if_loaded}. The
  // core promised that start step these very bytes at any time, so the
  // answer is applied as the step's: the decision records read again from
  // their text (each call's own objects, as a step gives them), its state,
  // its on_success as the pending answer, its call. Else null (the step is
  // sent). The literals compared are the core's writing and the JSON
  // literal of the stored text, as in #decided.
  #kept(stood, key, held) {
    if (held === undefined || held !== stood.stands || this.#downUntilMs !== 0 || this.budget || this.loopGuard
      || (this.#seen.get(key) ?? 'null') !== stood.stands) return null;
    const listened = !!(this.#o.onDecision || this.#listened || this.#o.console);
    return { action: stood.action, records: listened ? JSON.parse(stood.recordsText) : null, state: stood.state,
      ahead: stood.ahead };
  }

  /**
   * Calls fn({signal, attempt}) for tool with retries, the breaker, the budget
   * and the loop guard, and resolves to a CallResult (never rejects for the
   * tool's failures). args are the call's arguments (for the loop guard),
   * tokens what each attempt charges the budget; aborting signal ends the call
   * at once with CANCELLED (the breaker still hears of a call in flight).
   */
  async call(tool, fn, { args, tokens, signal } = {}) {
    let t = this.#heads.get(tool);
    if (t === undefined) {
      // Every step may decide ahead the answer to the event its action
      // expects: a call's success, a cas that swapped, a sleep that ended;
      // and a start says whether its answer stands (#kept).
      t = { head: JSON.stringify({ ...this.#config, op: 'step', tool, on_success: true, on_swapped: true, on_slept: true,
        standing: true }).slice(0, -1), key: this.#key(tool), stood: null };
      this.#heads.set(tool, t);
    }
    const { head, key } = t;
    const sleep = this.#o.sleep ?? sleepFor;
    // sent: the event's text; held: what an answer decided ahead, or the
    // start answer kept, is checked against (#decided, #kept); retry: for a
    // failure classified inside the step, the event with the envelope
    // classified here, sent when the core refuses the classify request;
    // ahead: the answer the core decided ahead for the event the last
    // action expects (readStep's of it), when it gave one.
    let state = 'null', value, cause, after = 'start', sent, held, retry, ahead;
    // Stored bytes that are no UTF-8, by the text the core was given (textOf).
    const raw = new Map();
    let event = args === undefined ? START : { kind: 'start', text: `{"kind":"start","args":${stringify(args)}` };
    for (;;) {
      if (event !== null) {
        let close = '}';
        held = undefined;
        if (this.#downUntilMs === 0 && (loadsAhead.has(event.kind) || (event.kind === 'cancelled' && after === 'call'))) {
          // A load made ahead, while the store is not left alone after failing:
          // the step uses it for the breaker's load, one step fewer.
          let l = this.#loadAhead(key, raw);
          if (!Array.isArray(l)) l = await l;
          close = `,"loaded":${l[0]}}`;
          if (event === SUCCESS || event === SLEPT || event.kind === 'start') held = l[1];
        }
        sent = event.text + close;
        const again = event.retry;
        retry = again && (() => again() + close);
      }
      let r = ahead !== undefined ? this.#decided(key, ahead, held)
        : event?.kind === 'start' && t.stood !== null ? this.#kept(t.stood, key, held) : null;
      if (r === null) {
        try {
          r = this.#step(head, key, tokens, state, sent);
        } catch (e) {
          if (!retry || !(e instanceof ToolerrError)) throw e;
          // The core refused the failure's classify request: the envelope
          // classified here (failureEnvelope, its fallbacks included).
          r = this.#step(head, key, tokens, state, retry());
        }
        // A start answer that stood replaces the one kept for the tool.
        if (r.stands !== undefined) t.stood = r;
      }
      state = r.state;
      ahead = r.ahead;
      held = retry = undefined;
      if (r.records) for (const rec of r.records) this.#report(rec);
      const a = r.action;
      after = a.kind;
      event = null;
      if (a.kind === 'stop') return new CallResult(a.error ? undefined : value, a.error, a.attempts, a.error ? cause : undefined);
      if (a.kind === 'load' || a.kind === 'cas') {
        sent = this.#store(a, raw);
        if (typeof sent !== 'string') sent = await sent;
        if (a.kind === 'cas' && sent.startsWith(CAS_SWAPPED)) held = SWAPPED;
      } else if (a.kind === 'call') {
        const timeout = a.timeout_ms ? deadline(a.timeout_ms) : null;
        const callSignal = signal && timeout ? AbortSignal.any([signal, timeout.signal]) : signal ?? timeout?.signal;
        try {
          value = await fn({ signal: callSignal, attempt: a.attempt });
          cause = undefined;
          event = SUCCESS;
        } catch (e) {
          cause = e;
          if (signal?.aborted) event = CANCELLED;
          else if (timeout?.signal.aborted) event = DEADLINE;
          else event = this.#failure(e, tool);
        } finally {
          timeout?.clear();
        }
      } else {
        try {
          await sleep(a.delay_ms, signal);
          event = signal?.aborted ? CANCELLED : SLEPT;
        } catch (e) {
          cause = e;
          event = CANCELLED;
        }
      }
    }
  }
}
