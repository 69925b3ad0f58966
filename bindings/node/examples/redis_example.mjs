// Two replicas share one breaker through Redis: replica A's failures open it, replica B finds it open.
import * as toolerr from 'toolerr';
import { RedisStore } from 'toolerr/redis'; // needs ioredis: npm install ioredis

const url = process.argv[2];
if (!url) {
  console.error('usage: node redis_example.mjs REDIS_URL (e.g. redis://127.0.0.1:6379/0)');
  process.exit(2);
}
let calls = 0;
const search = async () => { // the search service is down: every call gets a 503
  calls++;
  throw new toolerr.ToolFailure(toolerr.classifyHttp(503, {}, undefined, { tool: 'search' }));
};

const keyPrefix = `example:${process.pid}:`; // a fresh breaker per run; the replicas of one service share one prefix
const [sa, sb] = [await RedisStore.connect(url), await RedisStore.connect(url)];
const a = new toolerr.Executor({ store: sa, keyPrefix, retry: { max_attempts: 1 } });
const b = new toolerr.Executor({ store: sb, keyPrefix, retry: { max_attempts: 1 } });
for (let i = 1; i <= 3; i++) { // 3 counted failures open the breaker (the default failure_threshold)
  console.log(`replica A, call ${i}:`, (await a.call('search', search)).error.code);
}
const r = await b.call('search', search);
console.log('replica B:', r.error.code, '- the tool ran', calls, 'times'); // refused without calling it
await sa.close(); await sb.close();
