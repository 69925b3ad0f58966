// The typed helpers represent every shape the core returns: every serialize, parse and convert
// fixture with an "ok" answer goes through them (fromOutcomeValue, serialize / to*, parse,
// outcomeValue, convert), and the canonical JSON of what comes back equals the fixture's answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as toolerr from '../index.js';

const root = process.env.TOOLERR_FIXTURES || fileURLToPath(new URL('../../../conformance/fixtures', import.meta.url));
const TO = {
  'openai-chat': toolerr.toOpenAIChat, 'openai-responses': toolerr.toOpenAIResponses, anthropic: toolerr.toAnthropic,
  gemini: toolerr.toGemini, bedrock: toolerr.toBedrock, mcp: toolerr.toMCP,
};

function okTests(op) {
  const out = [];
  for (const f of readdirSync(join(root, op)).filter((n) => n.endsWith('.json')).sort()) {
    for (const c of JSON.parse(readFileSync(join(root, op, f), 'utf8'))) {
      for (const t of c.tests) {
        if ('ok' in t.response) out.push({ id: `${op}/${f}/${c.description}/${t.description}`, req: t.request, want: t.response.ok });
      }
    }
  }
  return out;
}

const outcomesOf = (req) => (req.results ?? [{ call: req.call, error: req.error, result: req.result }])
  .map((v) => toolerr.fromOutcomeValue(Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined))));

// A whole request body (the body member) is not a list the helpers take; those go through invoke.
const lists = (ts) => ts.filter((t) => 'messages' in t.req);
const serialize = okTests('serialize'), parse = lists(okTests('parse')), convert = lists(okTests('convert'));

test('fixtures are found', () => assert.ok(serialize.length > 50 && parse.length > 30 && convert.length > 5));

for (const { id, req, want } of serialize) {
  test(id, () => {
    const outs = outcomesOf(req);
    const got = 'output_schema' in req ? toolerr.toMCP(outs, { outputSchema: req.output_schema })
      : TO[req.format] ? TO[req.format](outs) : toolerr.serialize(req.format, outs);
    assert.equal(toolerr.canonicalize(got), toolerr.canonicalize(want));
  });
}

for (const { id, req, want } of parse) {
  test(id, () => {
    const got = toolerr.parse(req.format, req.messages).map(toolerr.outcomeValue);
    assert.equal(toolerr.canonicalize(got), toolerr.canonicalize(want));
  });
}

for (const { id, req, want } of convert) {
  test(id, () => {
    const { op, from, to, messages, ...options } = req;
    assert.equal(toolerr.canonicalize(toolerr.convert(messages, { from, to, ...options })), toolerr.canonicalize(want));
  });
}
