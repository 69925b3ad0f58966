// The transcript helpers take a whole request body (options.body) and JSON text, and the
// provider table's aliases; the answer is the whole body with only what changed changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as toolerr from '../index.js';

const body = {
  model: 'claude-sonnet-4-5', max_tokens: 100, system: 'Be brief.', metadata: { user_id: 'u1' },
  tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
  messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] }],
};

test('repair takes a whole body and keeps every other member', () => {
  const r = toolerr.repair('anthropic', null, { body });
  assert.equal(r.changes.synthesized, 1);
  for (const k of ['model', 'max_tokens', 'system', 'metadata', 'tools']) assert.deepEqual(r.body[k], body[k], k);
  assert.equal(r.body.messages[1].content[0].is_error, true);
  assert.deepEqual(toolerr.check('claude', null, { body: r.body }).findings, []);
});

test('convert takes a whole body and puts the system prompt and tools in the target\'s place', () => {
  const r = toolerr.convert(null, { from: 'anthropic', to: 'google', body });
  assert.deepEqual(r.body.systemInstruction, { parts: [{ text: 'Be brief.' }] });
  assert.deepEqual(r.body.tools[0].functionDeclarations[0].name, 'get_weather');
  assert.deepEqual(r.body.generationConfig, { maxOutputTokens: 100 });
  assert.ok(r.notes.some((n) => n.includes('metadata')));
});

test('trim and normalizeIds take a whole body', () => {
  assert.equal(toolerr.trim('anthropic', null, { body, max_messages: 5 }).body.model, 'claude-sonnet-4-5');
  assert.equal(toolerr.normalizeIds('anthropic', null, { body, target: 'mistral' }).body.system, 'Be brief.');
});

test('JSON text goes to the core unparsed: a duplicate key is refused, not resolved to the last', () => {
  const text = '[{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]},'
    + '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"real","tool_use_id":"toolu_X"}]}]';
  assert.throws(() => toolerr.repair('anthropic', text), (e) => e instanceof toolerr.ToolerrError && e.code === 'INVALID_INPUT' && /duplicate object key/.test(e.message));
  const ok = toolerr.repair('anthropic', null, { body: new TextEncoder().encode(JSON.stringify(body)) });
  assert.equal(ok.body.system, 'Be brief.');
  assert.equal(toolerr.check('gemini', '[]').findings.length, 0);
});

const call = '{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"f","input":{}}]}';
const refusedAt = (key) => (e) => e instanceof toolerr.ToolerrError && e.code === 'INVALID_INPUT'
  && e.details.path === key && /must be exactly one JSON value/.test(e.message);

test('JSON text as bytes is any ArrayBuffer or view, read as its bytes, as Buffer.from reads them', async () => {
  const { runInNewContext } = await import('node:vm');
  const text = JSON.stringify(body);
  const want = toolerr.repair('anthropic', null, { body: text });
  assert.equal(want.body.messages[1].content[0].is_error, true);
  // the bytes at an offset inside a larger buffer, so a view read from its buffer's start would differ
  const framed = new TextEncoder().encode(`xx${text}yyy`);
  const sab = new SharedArrayBuffer(text.length);
  new Uint8Array(sab).set(framed.subarray(2, 2 + text.length));
  const exact = framed.slice(2, 2 + text.length);
  const forged = new Uint8Array(framed.buffer, 2, text.length);
  Object.defineProperty(forged, 'byteOffset', { value: 0 });
  const given = [
    exact.buffer, sab, new DataView(framed.buffer, 2, text.length), new Int8Array(framed.buffer, 2, text.length),
    new Uint8ClampedArray(framed.buffer, 2, text.length), Buffer.from(text), forged,
    runInNewContext('new Uint8Array(b)', { b: exact.buffer.slice(0) }), // another realm's view
    runInNewContext('b.slice(0)', { b: exact.buffer }), // another realm's ArrayBuffer
  ];
  for (const bytes of given) {
    const kind = Object.prototype.toString.call(bytes);
    assert.deepEqual(toolerr.repair('anthropic', null, { body: bytes }), want, kind);
    assert.deepEqual(toolerr.egressRequest('anthropic', bytes).body.messages, want.body.messages, kind);
  }
  // a view of a list, and a duplicate key inside one, reach the core's parser as they are
  const list = new TextEncoder().encode(JSON.stringify(body.messages));
  assert.deepEqual(toolerr.check('anthropic', new DataView(list.buffer)).findings[0].ids, ['toolu_1']);
  assert.deepEqual(toolerr.check('anthropic', list.buffer).findings[0].ids, ['toolu_1']);
  assert.throws(() => toolerr.check('anthropic', new Int8Array(new TextEncoder().encode('[{"role":"user","role":"user","content":"x"}]').buffer)),
    (e) => e instanceof toolerr.ToolerrError && e.code === 'INVALID_INPUT' && e.details.path === 'messages' && /duplicate object key/.test(e.message));
  // empty bytes are empty text, refused as text, not read as an object
  assert.throws(() => toolerr.check('anthropic', new ArrayBuffer(0)), refusedAt('messages'));
});

test('JSON text must be one value: text that adds members, two values or trailing bytes is refused at its member', () => {
  const enc = new TextEncoder();
  // a member added after the list, the framing forged, two values, trailing bytes
  for (const bad of [`[${call}],"id_rules":"mistral"`, '[],"raw_len":2', '[] []', '[]x']) {
    for (const given of [bad, enc.encode(bad)]) {
      assert.throws(() => toolerr.check('anthropic', given), refusedAt('messages'), bad);
      assert.throws(() => toolerr.convert(given, { from: 'anthropic', to: 'gemini' }), refusedAt('messages'), bad);
    }
  }
  for (const bad of ['{"messages":[]},"open_calls":["toolu_1"]', '{"messages":[]}}']) {
    assert.throws(() => toolerr.repair('anthropic', null, { body: bad }), refusedAt('body'), bad);
    assert.throws(() => toolerr.egressRequest('anthropic', bad), refusedAt('body'), bad);
  }
});

test('JSON text with white space around it and quoted commas inside is read as its value', () => {
  const text = ` \n[${call},{"role":"user","content":"\\",\\"id_rules\\":\\"x"}]\t `;
  assert.deepEqual(toolerr.check('anthropic', text), toolerr.check('anthropic', JSON.parse(text)));
  assert.deepEqual(toolerr.check('anthropic', text).findings[0].ids, ['toolu_1']);
});

test('both or neither of messages and body is a bad request naming the member', () => {
  assert.throws(() => toolerr.check('anthropic', [], { body }), (e) => e.details.path === 'body');
  assert.throws(() => toolerr.check('anthropic', null), (e) => e.details.path === 'messages');
});

test('the aliases of the provider table name formats everywhere', () => {
  const [m] = toolerr.serialize('openai', [{ callId: 'call_1', name: 'f', error: toolerr.envelope('TIMEOUT', 'Timed out.') }]);
  assert.equal(m.role, 'tool');
  assert.equal(toolerr.classifyHttp(503, {}, undefined, { provider: 'google' }).details.provider, 'gemini');
});

test('the README body example prints the documented lines', async () => {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const out = execFileSync(process.execPath, ['--no-warnings', fileURLToPath(new URL('../examples/body_example.mjs', import.meta.url))],
    { encoding: 'utf8' });
  assert.deepEqual(out.trim().split('\n'), [
    '1 claude-sonnet-4-5 Answer briefly.',
    '{"parts":[{"text":"Answer briefly."}]} {"maxOutputTokens":1024}',
    'dropped the model parameter: gemini takes the model in the URL, not the body',
  ]);
});
