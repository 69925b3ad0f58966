// The Node replica of the cross-language and chaos tests (redisstore/replica_test.go
// describes the protocol): toolerr's Executor over toolerr/redis's RedisStore,
// driven by one JSON command per line on stdin, one JSON answer per line on stdout.
// Run with TOOLERR_NODE_DIR set to the toolerr package (bindings/node).
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const dir = process.env.TOOLERR_NODE_DIR;
const { Executor, ToolFailure } = await import(pathToFileURL(join(dir, 'index.js')).href);
const { RedisStore } = await import(pathToFileURL(join(dir, 'redis.js')).href);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let x = null, tool = '', probes = [];
for await (const line of createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line);
  if (cmd.cmd === 'config') {
    const c = cmd.config;
    tool = c.tool;
    const store = await RedisStore.connect(`redis://${c.addr}/0`, { timeoutMs: c.store_timeout_ms });
    x = new Executor({ store, storeBackoffMs: c.store_backoff_ms, retry: { max_attempts: 1 }, breaker: c.settings,
      onDecision: (r) => { if (r.probe) probes.push(Date.now()); } });
    process.stdout.write(JSON.stringify({ ok: true }) + '\n');
  } else if (cmd.cmd === 'run') {
    probes = [];
    const calls = [], end = performance.now() + cmd.ms;
    const worker = async () => {
      while (performance.now() < end) {
        let spent = 0, reached = 0;
        const start = Date.now(), t0 = performance.now();
        const r = await x.call(tool, async () => {
          reached = 1;
          const h0 = performance.now();
          if (cmd.hold_ms) await sleep(cmd.hold_ms);
          spent = performance.now() - h0;
          if (cmd.fail) throw new ToolFailure({ code: 'TRANSPORT', message: 'The tool is unavailable (HTTP 503).', retryable: true, details: { status: 503 }, source: 'tool' });
        });
        calls.push([start, Math.round((performance.now() - t0 - spent) * 1000), reached, r.error ? r.error.code : '']);
        await sleep(cmd.gap_ms ?? 0);
      }
    };
    await Promise.all(Array.from({ length: Math.max(cmd.workers ?? 1, 1) }, worker));
    calls.sort((a, b) => a[0] - b[0]);
    process.stdout.write(JSON.stringify({ calls, probes }) + '\n');
  } else if (cmd.cmd === 'quit') {
    break;
  }
}
process.exit(0);
