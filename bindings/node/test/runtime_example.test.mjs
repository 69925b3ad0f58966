// The runtime's worked example against a real HTTP server on loopback: 503, 503, then 400.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

test('runtime example retries the 503s and hands the 400 to the model as INVALID_ARGS', async () => {
  const answers = [[503, '{"error":"search backend unavailable"}'], [503, '{"error":"search backend unavailable"}'],
    [400, '{"error":"invalid argument: \'max_results\' must be at most 50"}']];
  let served = 0;
  const server = createServer((req, res) => {
    const [status, body] = answers[Math.min(served++, answers.length - 1)];
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${server.address().port}/search?q=flights&max_results=500`;
    const { stdout } = await promisify(execFile)(process.execPath,
      ['--no-warnings', fileURLToPath(new URL('../examples/runtime_example.mjs', import.meta.url)), url]);
    const lines = stdout.trim().split('\n');
    assert.match(lines[0], /^attempt 1: TRANSPORT -> retried silently after \d+ ms$/);
    assert.match(lines[1], /^attempt 2: TRANSPORT -> retried silently after \d+ ms$/);
    assert.deepEqual(lines.slice(2), ['attempt 3: INVALID_ARGS -> not retried (not_retryable)',
      'the model gets: INVALID_ARGS not retryable after 3 calls', 'tool_result is_error: true']);
    assert.equal(served, 3);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
