// toolerr in the Vercel AI SDK with no model API: seed 000's search tool (503, 503, then 400) inside generateText,
// whose model is the AI SDK's own MockLanguageModelV4 (ai/test), scripted here, so it runs with the search service alone.
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { Executor } from 'toolerr';
import { tool } from 'toolerr/integrations/ai-sdk';

if (process.argv.length < 3) throw new Error('usage: ai_sdk_test_model_example.mjs URL (a search service: bindings/python/examples/search_service.py in the clone starts one)');
const searchUrl = process.argv.at(-1); // the search service

const search = tool({
  name: 'search', // the key below: it names the tool in the envelope
  description: 'Search for flights.',
  inputSchema: z.object({ q: z.string(), max_results: z.number() }),
  executor: new Executor({ retry: { max_attempts: 3, base_ms: 20 } }),
  async execute({ q, max_results }) {
    const r = await fetch(`${searchUrl}?${new URLSearchParams({ q, max_results: String(max_results) })}`);
    if (!r.ok) throw r; // the 503s are retried by the executor; the 400 reaches the model as error-json
    return r.text();
  },
});

// The model: call search once, then say what the tool result it read was (LanguageModelV4's prompt and result shapes).
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };
const model = new MockLanguageModelV4({
  async doGenerate({ prompt }) {
    const last = prompt.at(-1);
    const result = last.role === 'tool' ? last.content.find((p) => p.type === 'tool-result' && p.toolName === 'search') : undefined;
    if (!result) {
      const input = JSON.stringify({ q: 'flights', max_results: 500 });
      return { content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'search', input }], finishReason: { unified: 'tool-calls', raw: undefined }, usage, warnings: [] };
    }
    const env = result.output.value; // the envelope, as the provider packages send it
    const text = `the model read ${env.code} (${result.output.type}), retryable: ${env.retryable}`;
    return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
  },
});

const { text } = await generateText({ model, tools: { search }, stopWhen: stepCountIs(6), prompt: 'Flights to Lisbon?' });
console.log(text);
