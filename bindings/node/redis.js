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

/** The deadline of each store operation connect() sets, in ms (Go: redisstore.DefaultTimeout). */
export const DEFAULT_TIMEOUT_MS = 50;

const bytes = (b) => (b == null ? null : new Uint8Array(b.buffer, b.byteOffset, b.byteLength));

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
    if (typeof client.toolerrCasBuffer !== 'function') {
      client.defineCommand('toolerrCas', { numberOfKeys: 1, lua: CAS_SCRIPT });
    }
  }

  /**
   * Connects a new ioredis client to url ("redis://host:6379/0") and resolves
   * to a store over it; options: timeoutMs (default 50), redis (more ioredis
   * options).
   */
  static async connect(url, { timeoutMs = DEFAULT_TIMEOUT_MS, redis = {} } = {}) {
    const { Redis } = await import('ioredis');
    const client = new Redis(url, {
      commandTimeout: timeoutMs,
      connectTimeout: Math.max(timeoutMs, 10),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      retryStrategy: (times) => Math.min(times * 50, 1000),
      ...redis,
    });
    client.on('error', () => {}); // every failure reaches the executor as a store_error
    try {
      await client.connect();
    } catch (e) {
      client.disconnect(); // no reconnecting in the background after a failed first connect
      throw e;
    }
    return new RedisStore(client);
  }

  /** Resolves to the bytes stored under key (GET), or null. */
  async load(key) {
    return bytes(await this.client.getBuffer(key));
  }

  /**
   * Stores next under key only if it holds exactly old (null: nothing),
   * atomically in Redis; resolves to {swapped, current} (current: the bytes
   * stored now when not swapped, or null).
   */
  async compareAndSwap(key, old, next) {
    const res = await this.client.toolerrCasBuffer(key, old === null ? '1' : '0', old === null ? '' : Buffer.from(old),
      Buffer.from(next));
    if (!Array.isArray(res) || res.length === 0) throw new Error('toolerr: the compare-and-swap script gave an empty reply');
    if (Number(res[0]) === 1) return { swapped: true, current: null };
    return { swapped: false, current: res.length > 1 ? bytes(res[1]) : null };
  }

  /** Closes the client. */
  async close() {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
