// Hostile input to the binding's request builders: options that would replace
// the request's own members, values nested past what JSON.stringify can
// write, requests over the core's 32 MiB bound (refused before they are
// copied into the module's memory).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as toolerr from '../index.js';

const MSGS = [{ role: 'user', content: 'hi' }];
const LIMIT = 32 << 20; // core.MaxRequestBytes (cshared/toolerr.h TOOLERR_MAX_REQUEST_BYTES)

const named = (name) => (e) => e instanceof TypeError && e.message.includes(`"${name}"`);

// option: one the op takes, whose value changes nothing here (normalize_ids
// takes no option but its target, which the format gives)
for (const [fn, call, option] of [
  ['check', (o, m = MSGS) => toolerr.check('openai-chat', m, o), { model: 'gpt-4o' }],
  ['repair', (o, m = MSGS) => toolerr.repair('openai-chat', m, o), { model: 'gpt-4o' }],
  ['trim', (o, m = MSGS) => toolerr.trim('openai-chat', m, { max_messages: 5, ...o }), { max_messages: 5 }],
  ['normalizeIds', (o, m = MSGS) => toolerr.normalizeIds('openai-chat', m, o), null],
  ['convert', (o, m = MSGS) => toolerr.convert(m, { from: 'openai-chat', to: 'anthropic', ...o }), { model: 'gpt-4o' }],
]) {
  test(`${fn}: an option cannot replace the request's own members`, () => {
    for (const name of ['op', 'raw_len', 'messages', ...(fn === 'convert' ? [] : ['format'])]) {
      const bad = { [name]: name === 'raw_len' ? 2 : name === 'messages' ? [] : 'gemini' };
      assert.throws(() => call(bad), named(name), name);
      assert.throws(() => call(bad, '[]'), named(name), `${name}, with JSON text`);
    }
    if (option) assert.deepEqual(call(option), call({})); // a member that is an option still goes
  });
}

test('egressRequest: an option cannot replace op, format or body', () => {
  const body = { model: 'gpt-4o', messages: MSGS };
  for (const name of ['op', 'raw_len', 'format', 'body']) {
    assert.throws(() => toolerr.egressRequest('openai-chat', body, { [name]: 'x' }), named(name), name);
  }
  assert.ok(toolerr.egressRequest('openai-chat', body, { model: 'gpt-4o' }));
});

test('loopGuard: its members cannot replace op', () => {
  assert.throws(() => toolerr.loopGuard({ op: 'version' }), named('op'));
});

test('a misspelled option is refused by name, not dropped for its default', () => {
  const msgs = [{ role: 'user', content: 'hi' }];
  const unknown = (name) => (e) => e.code === 'INVALID_INPUT' && e.details.path === name && /is not a known member/.test(e.message);
  assert.throws(() => toolerr.check('openai-chat', msgs, { id_rule: 'anthropic' }), unknown('id_rule'));
  assert.throws(() => toolerr.check('openai-chat', '[]', { modle: 'gpt-4o' }), unknown('modle'), 'with JSON text (framed)');
  assert.throws(() => toolerr.trim('openai-chat', msgs, { max_message: 1 }), unknown('max_message'));
  assert.throws(() => toolerr.loopGuard({ call: { tool: 't', args: {} }, history: [], treshold: 1 }), unknown('treshold'));
});

const nested = (depth) => {
  let v = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

test('a value nested 100,000 deep is a TypeError, not a RangeError', async () => {
  const deep = nested(100_000);
  const calls = {
    check: () => toolerr.check('openai-chat', [{ role: 'user', content: deep }]),
    invoke: () => toolerr.invoke({ op: 'canonicalize', value: deep }),
    canonicalize: () => toolerr.canonicalize(deep),
    envelope: () => toolerr.envelope('TIMEOUT', 'slow', { details: { x: deep } }),
    egressRequest: () => toolerr.egressRequest('openai-chat', { messages: [{ role: 'user', content: deep }] }),
    classifyRequestText: () => toolerr.classifyRequestText({ status: 500, body: deep }),
  };
  for (const [name, fn] of Object.entries(calls)) {
    assert.throws(fn, (e) => e instanceof TypeError && /nested too deep/.test(e.message), name);
  }
  const x = new toolerr.Executor();
  await assert.rejects(x.call('search', () => 1, { args: deep }), (e) => e instanceof TypeError && /nested too deep/.test(e.message));
  assert.throws(() => toolerr.canonicalize(nested(600)), (e) => e.code === 'INVALID_INPUT' && e.details.bound === 'depth');
});

test('a request over 32 MiB is refused before it is copied into the module', () => {
  // A fresh process: the module's memory grows only for what is copied into it.
  const src = `
    import * as t from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
    const LIMIT = ${LIMIT};
    const mem = () => t.wasmExports().memory.buffer.byteLength;
    t.version();
    const before = mem(), counts = [];
    const refused = (fn) => { try { fn(); } catch (e) { if (e.details?.bound === 'request_bytes') return counts.push(e.details.count); throw e; } throw new Error('not refused'); };
    const text = '[' + ' '.repeat(LIMIT) + ']';
    refused(() => t.check('openai-chat', text));
    refused(() => t.check('openai-chat', new TextEncoder().encode(text)));
    refused(() => t.invoke({ op: 'canonicalize', value: text }));
    refused(() => t.canonicalize('\\u00e9'.repeat(LIMIT / 2 + 1)));
    const r = JSON.parse(new TextDecoder().decode(t.invokeBytes(new Uint8Array(LIMIT + 1))));
    counts.push(r.error.details.count);
    console.log(JSON.stringify({ grew: mem() - before, counts }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const { grew, counts } = JSON.parse(r.stdout);
  const head = '{"op":"check","format":"openai-chat","messages":'.length;
  assert.deepEqual(counts, [
    head + LIMIT + 2 + `,"raw_len":${LIMIT + 2}}`.length,
    head + LIMIT + 2 + `,"raw_len":${LIMIT + 2}}`.length,
    '{"op":"canonicalize","value":""}'.length + LIMIT + 2,
    '{"op":"canonicalize","value":""}'.length + LIMIT + 2, // each U+00E9 two bytes
    LIMIT + 1,
  ]);
  assert.ok(grew < 4 << 20, `the module's memory grew by ${grew} bytes`);
});
