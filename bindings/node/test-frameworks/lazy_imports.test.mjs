// import 'toolerr' loads no framework: each integration imports its framework
// only when the integration itself is imported (the frameworks are optional
// peer dependencies).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const frameworks = ['@openai/agents', '@langchain/core', '@langchain/langgraph', 'ai', '@modelcontextprotocol/sdk'];
// A resolve hook that refuses every framework package, registered before the
// script runs: importing one is then an error that names it.
const hook = `export async function resolve(s, c, next) {
  if (${JSON.stringify(frameworks)}.some((f) => s === f || s.startsWith(f + '/'))) throw new Error('framework loaded: ' + s);
  return next(s, c);
}`;
const register = `import { register } from 'node:module'; register(${JSON.stringify('data:text/javascript,' + encodeURIComponent(hook))});`;

async function child(script) {
  const args = ['--disable-warning=ExperimentalWarning', '--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script];
  return promisify(execFile)(process.execPath, args, { cwd: new URL('.', import.meta.url).pathname }).then(({ stdout }) => stdout.trim());
}

test("import 'toolerr' loads no framework", async () => {
  assert.equal(await child("const t = await import('toolerr'); console.log(t.classifyHttp(503, {}).code);"), 'TRANSPORT');
});

for (const [name, pkg] of [['openai-agents', '@openai/agents'], ['langgraph', '@langchain/'], ['ai-sdk', 'ai']]) {
  test(`toolerr/integrations/${name} loads ${pkg} when imported`, async () => {
    const out = await child(`try { await import('toolerr/integrations/${name}'); console.log('loaded'); } catch (e) { console.log(String(e.cause?.message ?? e.message)); }`);
    assert.ok(out.startsWith(`framework loaded: ${pkg}`), out);
  });
}

test('toolerr/integrations/mcp loads no framework at all (a CallToolResult is a plain object)', async () => {
  assert.equal(await child("const m = await import('toolerr/integrations/mcp'); console.log(m.callToolResult({ code: 'TIMEOUT', message: 'x', retryable: true, details: {}, source: 'tool' }).isError);"), 'true');
});
