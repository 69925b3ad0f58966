// The Node binding beside the Vercel AI SDK (ai + @ai-sdk/anthropic), in one
// process (scripts/bench-bindings.sh). Work items of issue 12: (a) one failed
// tool call's envelope to an Anthropic tool_result message; (b) the
// 40-message OpenAI Chat transcript of the core's benchmark
// (core/testdata/bench/transcript-b.json, TOOLERR_BENCH_TRANSCRIPT) converted
// to Anthropic, given as a list and as compact JSON text. The AI SDK's side is the
// same content as its own prompt (tool results with error-json outputs),
// through the provider's getArgs (the request body built) and doGenerate
// (the body serialized and handed to a fetch that captures it). Each pair runs
// in interleaved rounds; the figure is the median of the per-round ratios.
// When the native addon loads (TOOLERR_NATIVE_ADDON, or toolerr-native
// installed), the same pairs run through it too, in the same process, beside
// the wasm: a second instance of core.js (the same file, imported under
// another URL) with the addon as its transport, and the addon against the
// wasm on the same calls.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as toolerr from '../index.js';
import { loadAddon } from '../native-addon.js';
import { createAnthropic } from '@ai-sdk/anthropic';

const addon = loadAddon();
const native = addon && await import('../core.js?transport=native');
native?.setTransport(addon);

const version = (name) => JSON.parse(readFileSync(createRequire(import.meta.url).resolve(`${name}/package.json`))).version;
const env = { code: 'TIMEOUT', details: { attempt: 1, tool: 'get_weather' },
  message: 'The get_weather tool timed out after 10 seconds.', retryable: true, source: 'tool' };
const outcome = [{ callId: 'toolu_01', name: 'get_weather', error: env }];

let captured;
const stop = new Error('captured');
const model = createAnthropic({ apiKey: 'bench', fetch: async (_url, init) => { captured = init.body; throw stop; } })('claude-sonnet-4-5');
const generate = async (prompt) => {
  try { await model.doGenerate({ prompt }); } catch (e) { if (e !== stop && e.cause !== stop) throw e; }
};

// The transcript as the AI SDK's prompt: the same messages, calls and failures.
const msgs = JSON.parse(readFileSync(process.env.TOOLERR_BENCH_TRANSCRIPT, 'utf8'));
const raw = JSON.stringify(msgs);
const names = new Map();
const prompt = msgs.map((m) => {
  if (m.role === 'system') return { role: 'system', content: m.content };
  if (m.role === 'user') return { role: 'user', content: [{ type: 'text', text: m.content }] };
  if (m.role === 'assistant' && m.tool_calls) {
    return { role: 'assistant', content: m.tool_calls.map((c) => (names.set(c.id, c.function.name),
      { type: 'tool-call', toolCallId: c.id, toolName: c.function.name, input: JSON.parse(c.function.arguments) })) };
  }
  if (m.role === 'assistant') return { role: 'assistant', content: [{ type: 'text', text: m.content }] };
  const failed = m.content.startsWith('{"code":');
  return { role: 'tool', content: [{ type: 'tool-result', toolCallId: m.tool_call_id, toolName: names.get(m.tool_call_id),
    output: failed ? { type: 'error-json', value: JSON.parse(m.content) } : { type: 'text', value: m.content } }] };
});
const onePrompt = [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_01', toolName: 'get_weather',
  output: { type: 'error-json', value: env } }] }];

// the same work on both sides
const ours = toolerr.convert(msgs, { from: 'openai-chat', to: 'anthropic' });
await generate(prompt);
const theirs = JSON.parse(captured);
if (ours.messages.length !== theirs.messages.length) throw new Error(`${ours.messages.length} messages against ${theirs.messages.length}`);
const flagged = (ms) => ms.flatMap((m) => m.content).filter((b) => b.is_error).length;
if (flagged(ours.messages) !== 3 || flagged(theirs.messages) !== 3) throw new Error('the failure flags differ');
if (!toolerr.toAnthropic(outcome)[0].content[0].is_error) throw new Error('toolerr built no is_error');
if (native) { // the addon's answers are the wasm's, byte for byte
  if (native.transport() !== 'native' || toolerr.transport() !== 'wasm') throw new Error('the transports are not set apart');
  const same = (x, y, what) => { if (JSON.stringify(x) !== JSON.stringify(y)) throw new Error(`the addon's ${what} differs from the wasm's`); };
  same(native.convert(msgs, { from: 'openai-chat', to: 'anthropic' }), ours, 'convert');
  same(native.toAnthropic(outcome), toolerr.toAnthropic(outcome), 'toAnthropic');
}

const rounds = Number(process.env.BENCH_ROUNDS || 41);
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
async function perCall(fn, n) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - t0) * 1000 / n;
}
async function pair(name, a, b, n, goal) {
  for (let i = 0; i < Math.max(1, n); i++) { await a(); await b(); } // V8 tiers wasm and JS up
  const xs = [], ys = [], rs = [];
  for (let r = 0; r < rounds; r++) {
    // ours first in even rounds, the peer first in odd ones: the second slot pays for the first's garbage
    let x, y;
    if (r % 2 === 0) { x = await perCall(a, n); y = await perCall(b, n); } else { y = await perCall(b, n); x = await perCall(a, n); }
    xs.push(x); ys.push(y); rs.push(x / y);
  }
  const ratio = median(rs);
  console.log(`${name.padEnd(50)} ${median(xs).toFixed(2).padStart(9)} us ${median(ys).toFixed(2).padStart(9)} us ${ratio.toFixed(2).padStart(6)}x (goal <= ${goal}x: ${ratio <= goal ? 'met' : 'missed'})`);
}

const n = Number(process.env.BENCH_CALLS || 400);
const m = Math.max(1, n / 40);
console.log(`node ${process.version}, ai ${version('ai')}, @ai-sdk/anthropic ${version('@ai-sdk/anthropic')}; medians of ${rounds} interleaved rounds` +
  `; the native addon ${native ? 'beside the wasm' : 'not loaded (set TOOLERR_NATIVE_ADDON or install toolerr-native): wasm only'}`);
console.log(`${''.padEnd(50)} ${'toolerr'.padStart(12)} ${'peer'.padStart(12)} ${'ratio'.padStart(7)}`);
const work = process.env.BENCH_WORK || 'ab'; // which work items run: "a", "b" or both
const getArgsA = () => model.getArgs({ prompt: onePrompt, stream: false, userSuppliedBetas: new Set() });
const getArgsB = () => model.getArgs({ prompt, stream: false, userSuppliedBetas: new Set() });
// peers runs the pairs of both work items with t (a binding's API: the wasm
// or the addon) against the AI SDK, its lines named with label.
async function peers(label, t) {
  const toB = (list) => t.convert(list, { from: 'openai-chat', to: 'anthropic' });
  if (work.includes('a')) {
    await pair(`(a) ${label}toAnthropic / AI SDK getArgs`, () => t.toAnthropic(outcome), getArgsA, n, 1);
    await pair(`(a) ${label}toAnthropic / AI SDK doGenerate`, () => t.toAnthropic(outcome), () => generate(onePrompt), n, 1);
  }
  if (work.includes('b')) {
    await pair(`(b) ${label}-> anthropic, list / AI SDK getArgs`, () => toB(msgs), getArgsB, m, 1);
    await pair(`(b) ${label}-> anthropic, list / AI SDK doGenerate`, () => toB(msgs), () => generate(prompt), m, 1);
    await pair(`(b) ${label}-> anthropic, JSON text in / AI SDK doGenerate`, () => toB(raw), () => generate(prompt), m, 1);
  }
}
await peers('', toolerr);
if (native) {
  console.log('the native addon (toolerr-native), same process:');
  await peers('native ', native);
  if (work.includes('a')) await pair('(a) native toAnthropic / wasm toAnthropic', () => native.toAnthropic(outcome), () => toolerr.toAnthropic(outcome), n, 1);
  if (work.includes('b')) {
    await pair('(b) native -> anthropic, list / wasm', () => native.convert(msgs, { from: 'openai-chat', to: 'anthropic' }),
      () => toolerr.convert(msgs, { from: 'openai-chat', to: 'anthropic' }), m, 1);
  }
}
