import type { Store } from './index.js';

/** The compare-and-swap Lua script, byte for byte the one Go embeds. */
export const CAS_SCRIPT: string;
/** The deadline of each store operation connect() sets, in ms. */
export const DEFAULT_TIMEOUT_MS: number;

/** The runtime's Store over an ioredis client (an optional peer dependency). */
export class RedisStore implements Store {
  /** Over an ioredis client the caller owns (its commandTimeout is the store's deadline). */
  constructor(client: unknown);
  readonly client: unknown;
  /** A new ioredis client for url whose every command ends within timeoutMs (default 50), with no offline queue and no client retries. */
  static connect(url: string, options?: { timeoutMs?: number; redis?: Record<string, unknown> }): Promise<RedisStore>;
  load(key: string): Promise<Uint8Array | null>;
  compareAndSwap(key: string, old: Uint8Array | null, next: Uint8Array): Promise<{ swapped: boolean; current: Uint8Array | null }>;
  close(): Promise<void>;
}
