// browser.js in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core):
// toolerr.wasm through @bjorn3/browser_wasi_shim, served from a loopback HTTP server
// that this test starts and stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, normalize, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const chromiumPath = process.env.TOOLERR_CHROMIUM || '/usr/bin/chromium';
const types = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.html': 'text/html' };
const page = `<!doctype html><script type="importmap">{"imports":
  {"@bjorn3/browser_wasi_shim": "/node_modules/@bjorn3/browser_wasi_shim/dist/index.js"}}</script>`;

test('browser.js runs in headless Chromium', async () => {
  assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing (scripts/test-node.sh installs Debian's chromium)`);
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    try {
      const body = path === '/' ? page : await readFile(join(root, path));
      res.writeHead(200, { 'content-type': types[extname(path)] ?? 'text/html' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox', '--headless=new'] });
  try {
    const tab = await browser.newPage();
    const logged = []; // what the page wrote to its console (not the browser's own errors: /favicon.ico's 404)
    tab.on('console', (m) => { if (m.type() !== 'error') logged.push(m.text()); });
    await tab.goto(`http://127.0.0.1:${server.address().port}/`);
    const got = await tab.evaluate(async () => {
      const t = await import('/browser.js');
      await t.init();
      let thrown;
      try { t.invoke({ op: 'no_such_op' }); } catch (e) { thrown = [e instanceof t.ToolerrError, e.code, e.details.path]; }
      return { version: t.version(), env: t.envelope('TIMEOUT', 'Search timed out after 10 s'), thrown,
        canon: t.canonicalize({ b: 1, a: 'é' }) };
    });
    assert.equal(got.version.abi, 1);
    assert.deepEqual(got.env, { code: 'TIMEOUT', details: {}, message: 'Search timed out after 10 s.', retryable: true, source: 'tool' });
    assert.deepEqual(got.thrown, [true, 'INVALID_INPUT', 'op']);
    assert.equal(got.canon, '{"a":"é","b":1}');
    // @bjorn3/browser_wasi_shim's WASI logs each call ('wasi: 0 0' for args_sizes_get)
    // unless its options say debug: false.
    assert.deepEqual(logged, []);
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
  }
});
