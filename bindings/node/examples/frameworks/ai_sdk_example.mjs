// toolerr in the Vercel AI SDK: seed 000's search tool (503, 503, then 400) inside generateText with Claude.
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, stepCountIs } from 'ai';
import { z } from 'zod';
import { Executor } from 'toolerr';
import { tool } from 'toolerr/integrations/ai-sdk';

const [baseURL, searchUrl] = process.argv.slice(2); // the model API and the search service (the test's, on loopback)

const search = tool({
  name: 'search', // the key below: it names the tool in the envelope
  description: 'Search for flights.',
  inputSchema: z.object({ q: z.string(), max_results: z.number() }),
  executor: new Executor({ retry: { max_attempts: 3, base_ms: 20 } }),
  async execute({ q, max_results }) {
    const r = await fetch(`${searchUrl}?${new URLSearchParams({ q, max_results: String(max_results) })}`);
    if (!r.ok) throw r; // the 503s are retried by the executor; the 400 reaches Claude as error-json, is_error: true
    return r.text();
  },
});

const model = createAnthropic({ baseURL })('claude-sonnet-4-5'); // the key: ANTHROPIC_API_KEY
const { text } = await generateText({ model, tools: { search }, stopWhen: stepCountIs(6), prompt: 'Flights to Lisbon?' });
console.log(text);
