// toolerr/redis: breakers shared between replicas through Redis, the
// runtime's Store port over an ioredis client. load is a GET,
// compareAndSwap one EVALSHA of the compare-and-swap script every
// language's Redis store runs (cas.lua, shipped in this package from
// redisstore/cas.lua), with the same keys and the core's canonical state
// bytes, so Go, Python, Node and Rust replicas share one breaker per tool.
// The breaker logic stays in the core; Redis only makes one change atomic.
//
// ioredis is an optional peer dependency (npm install ioredis): importing
// toolerr never loads it. Why ioredis rather than node-redis: RATIONALE.md.
import { readFileSync } from 'node:fs';

function readScript() {
  try {
    return readFileSync(new URL('./cas.lua', import.meta.url), 'utf8');
  } catch {
    // A clone: the one file, beside the Go store.
    return readFileSync(new URL('../../redisstore/cas.lua', import.meta.url), 'utf8');
  }
}

/** The compare-and-swap Lua script, byte for byte the one Go embeds (same SHA-1). */
export const CAS_SCRIPT = readScript();

/**
 * What a key of another Redis type than a string (a list, a hash: GET answers
 * WRONGTYPE) reads as, in load and in cas.lua alike (Go:
 * redisstore.WrongTypeState): not a breaker state, so the executor repairs
 * the key instead of failing every operation on it.
 */
export const WRONG_TYPE_STATE = 'toolerr: the key holds another Redis type than a string (WRONGTYPE)';

/** The deadline of each store operation connect() sets, in ms (Go: redisstore.DefaultTimeout). */
export const DEFAULT_TIMEOUT_MS = 50;

/**
 * The deadline of the client's connect that connect() sets, in ms (ioredis
 * connectTimeout; Go: redisstore.DefaultConnectTimeout): connect() is awaited
 * before the store exists, so no decision waits on it, and with 50 ms it
 * rejected on a loaded machine. Reconnects after a lost connection run in the
 * background (commands fail at once meanwhile: no offline queue).
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 500;

const bytes = (b) => (b == null ? null : new Uint8Array(b.buffer, b.byteOffset, b.byteLength));

// casReply reads the script's reply as ioredis gives it (the Buffer
// variant): [1] swapped, [0] the key is absent, [0, bulk string] the bytes
// stored now. Any other shape (a server not running cas.lua) throws, naming
// the shape and never the bytes, so the executor falls back and backs off.
function casReply(res) {
  if (Array.isArray(res) && res.length === 1 && (res[0] === 0 || res[0] === 1)) return { swapped: res[0] === 1, current: null };
  if (Array.isArray(res) && res.length === 2 && res[0] === 0 && Buffer.isBuffer(res[1])) return { swapped: false, current: bytes(res[1]) };
  throw new Error(`toolerr: the compare-and-swap script gave an unexpected reply ${shape(res, true)} (want [1], [0] or [0, bulk string])`);
}

// shape names an ioredis reply's type, an array's by its elements'.
function shape(v, top = false) {
  if (Array.isArray(v)) return !top || v.length > 4 ? `array of ${v.length}` : `[${v.map((e) => shape(e)).join(', ')}]`;
  if (v === null) return 'nil';
  if (Number.isInteger(v)) return 'integer';
  if (Buffer.isBuffer(v) || typeof v === 'string') return 'bulk string';
  return v?.constructor?.name ?? typeof v;
}

// guardReplies keeps a reply that redis-parser throws on from ending the
// process: ioredis reads each connection's bytes in a 'data' listener
// (DataHandler: parser.execute), where nothing catches what the parser
// throws, and redis-parser 3.0.0 throws a RangeError (Invalid array length)
// building the array of a reply whose length no Array holds ("*" and 19
// digits, from a server that is not Redis): an uncaught exception, in the
// ready check's INFO of connect() or in any command's reply. Each stream the
// client connects ('connect': DataHandler's listener is on it by then, no
// byte read yet) has its 'data' listeners wrapped: what one throws destroys
// that connection with the error (ioredis rejects its commands and
// reconnects, as for a dropped connection; the parser's state is lost with
// it). Once per client; the client's stream of now too, if it has one.
const guarded = new WeakSet();
function guardReplies(client) {
  if (typeof client?.on !== 'function' || guarded.has(client)) return; // not an ioredis client (a test's stand-in)
  guarded.add(client);
  const wrap = () => {
    const stream = client.stream;
    if (!stream || guarded.has(stream)) return;
    guarded.add(stream);
    for (const listener of stream.listeners('data')) {
      stream.removeListener('data', listener);
      stream.on('data', function onData(data) {
        try {
          listener.call(this, data);
        } catch (e) {
          stream.destroy(e);
        }
      });
    }
  };
  client.on('connect', wrap);
  wrap();
}

// importIoredis imports the optional peer dependency, saying how to install
// it when it is not (Node's own error names only the importing file).
async function importIoredis() {
  try {
    return await import('ioredis');
  } catch (e) {
    if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !/'ioredis'/.test(e.message)) throw e;
    throw new Error('toolerr: RedisStore.connect needs ioredis, an optional peer dependency of toolerr: npm install ioredis', { cause: e });
  }
}

// connectError is connect()'s rejection: where it connected (host and port or
// socket path from the client's options, never the URL, which may hold a
// password), why (e), and the client's last 'error' event when it says more
// (a refused port: "connect ECONNREFUSED 127.0.0.1:6380"), with e as cause.
function connectError(options, e, last) {
  const where = options.path ?? `${options.host}:${options.port}`;
  const more = last && last !== e && last.message && last.message !== e?.message ? ` (${last.message})` : '';
  return new Error(`toolerr: could not connect to Redis at ${where}: ${e?.message ?? e}${more}`, { cause: e });
}

/**
 * The runtime's Store over an ioredis client (the caller owns it). Use
 * RedisStore.connect(url) for a client whose every command ends within
 * timeoutMs (commandTimeout), fails at once while disconnected (no offline
 * queue) and is never retried by the client: the executor falls back to the
 * last state it saw and leaves the store alone for its back-off window.
 */
export class RedisStore {
  constructor(client) {
    this.client = client;
    guardReplies(client);
    if (typeof client.toolerrCasBuffer !== 'function') {
      client.defineCommand('toolerrCas', { numberOfKeys: 1, lua: CAS_SCRIPT });
    }
  }

  /**
   * Connects a new ioredis client to url ("redis://host:6379/0") and resolves
   * to a store over it; options: timeoutMs (default 50: each command once
   * Redis has answered), connectTimeoutMs (default 500, never shorter than
   * timeoutMs: the TCP connect and Redis's first answer, the ready check),
   * redis (more ioredis options). Rejects with an Error naming the host and
   * port and why ("toolerr: could not connect to Redis at 127.0.0.1:6380:
   * Connection is closed. (connect ECONNREFUSED 127.0.0.1:6380)"), ioredis's
   * error as its cause; without ioredis installed, with one saying to
   * install it.
   */
  static async connect(url, { timeoutMs = DEFAULT_TIMEOUT_MS, connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS, redis = {} } = {}) {
    const { Redis } = await importIoredis();
    const wait = Math.max(timeoutMs, connectTimeoutMs, 10);
    const client = new Redis(url, {
      commandTimeout: wait, // the ready check's INFO too: Redis's first answer gets the connect deadline, as Go's
      connectTimeout: wait,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: (times) => Math.min(times * 50, 1000),
      ...redis,
    });
    let lastError; // ioredis rejects connect() with "Connection is closed." alone; the reason came as an 'error' event
    client.on('error', (e) => { lastError = e; }); // every failure reaches the executor as a store_error
    guardReplies(client); // before connect(): its ready check reads a reply
    // ioredis's connectTimeout bounds the TCP connect only: a server that
    // accepts and never answers held connect() in its ready check and
    // reconnects for 2-4 s (connectTimeoutMs 100 and 500). connect() also
    // rejects when Redis has sent no byte within the deadline (as Go's
    // store: until Redis first answers). Once it has, ioredis's own bounds
    // apply. The check runs after the I/O the timer may have overtaken
    // (setImmediate): on a loop blocked past the deadline, a reply already
    // arrived counts.
    let answered = false;
    client.once('connect', () => client.stream?.once('data', () => { answered = true; }));
    const connecting = client.connect();
    connecting.catch(() => {}); // a loser of the race below rejects later, handled
    let timer;
    try {
      await Promise.race([connecting, new Promise((_, reject) => {
        timer = setTimeout(() => setImmediate(() => {
          if (!answered) reject(new Error(`toolerr: Redis did not answer within ${wait} ms (connectTimeoutMs)`));
        }), wait);
      })]);
    } catch (e) {
      client.disconnect(); // no reconnecting in the background after a failed first connect
      throw connectError(client.options, e, lastError);
    } finally {
      clearTimeout(timer);
    }
    // Redis has answered (the ready check): from now on each command gets the store's deadline. ioredis reads
    // options.commandTimeout per command; at 50 ms from the start the ready check timed out on a loaded machine
    // and connect() rejected ('Connection is closed', the README's Redis example under CI).
    client.options.commandTimeout = redis.commandTimeout ?? timeoutMs;
    return new RedisStore(client);
  }

  /** Resolves to the bytes stored under key (GET), or null; WRONG_TYPE_STATE for a key of another Redis type. */
  async load(key) {
    try {
      return bytes(await this.client.getBuffer(key));
    } catch (e) {
      if (e?.name === 'ReplyError' && e.message.startsWith('WRONGTYPE')) return new TextEncoder().encode(WRONG_TYPE_STATE);
      throw e;
    }
  }

  /**
   * Stores next under key only if it holds exactly old (null: nothing),
   * atomically in Redis; resolves to {swapped, current} (current: the bytes
   * stored now when not swapped, or null).
   */
  async compareAndSwap(key, old, next) {
    const res = await this.client.toolerrCasBuffer(key, old === null ? '1' : '0', old === null ? '' : Buffer.from(old),
      Buffer.from(next));
    return casReply(res);
  }

  /** Closes the client. */
  async close() {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
