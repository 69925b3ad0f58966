import type { Store } from './index.js';

/** The compare-and-swap Lua script, byte for byte the one Go embeds. */
export const CAS_SCRIPT: string;
/** What a key of another Redis type than a string (GET answers WRONGTYPE) reads as, in load and in cas.lua alike: not a breaker state, so the executor repairs the key. */
export const WRONG_TYPE_STATE: string;
/** The deadline of each store operation connect() sets, in ms. */
export const DEFAULT_TIMEOUT_MS: number;
/** The deadline of the client's connect (ioredis connectTimeout) that connect() sets, in ms: 500. */
export const DEFAULT_CONNECT_TIMEOUT_MS: number;

/** The runtime's Store over an ioredis client (an optional peer dependency). */
export class RedisStore implements Store {
  /** Over an ioredis client the caller owns (its commandTimeout is the store's deadline). */
  constructor(client: unknown);
  readonly client: unknown;
  /** A new ioredis client for url whose every command ends within timeoutMs (default 50) and whose connect within connectTimeoutMs (default 500, never under timeoutMs), with no offline queue and no client retries. Rejects with an Error naming the host and port and why ("toolerr: could not connect to Redis at 127.0.0.1:6380: Connection is closed. (connect ECONNREFUSED 127.0.0.1:6380)"; ioredis's error as cause), or, without ioredis installed, saying to install it. */
  static connect(url: string, options?: { timeoutMs?: number; connectTimeoutMs?: number; redis?: Record<string, unknown> }): Promise<RedisStore>;
  /** The bytes stored under key (GET), or null; WRONG_TYPE_STATE's bytes for a key of another Redis type. */
  load(key: string): Promise<Uint8Array | null>;
  compareAndSwap(key: string, old: Uint8Array | null, next: Uint8Array): Promise<{ swapped: boolean; current: Uint8Array | null }>;
  close(): Promise<void>;
}
