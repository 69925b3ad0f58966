// toolerr in the OpenAI Agents SDK: seed 000's search tool (503, 503, then 400) inside an agent run.
import { Agent, OpenAIResponsesModel, run, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';
import { Executor } from 'toolerr';
import { tool } from 'toolerr/integrations/openai-agents';

const [baseURL, searchUrl] = process.argv.slice(2); // the model API and the search service (the test's, on loopback)
setTracingDisabled(true);

const search = tool({
  name: 'search',
  description: 'Search for flights.',
  parameters: z.object({ q: z.string(), max_results: z.number() }),
  executor: new Executor({ retry: { max_attempts: 3, base_ms: 20 } }),
  async execute({ q, max_results }) {
    const r = await fetch(`${searchUrl}?${new URLSearchParams({ q, max_results: String(max_results) })}`);
    if (!r.ok) throw r; // the 503s are retried by the executor; the 400 reaches the model as INVALID_ARGS
    return r.text();
  },
});

const model = new OpenAIResponsesModel(new OpenAI({ baseURL }), 'gpt-4o'); // the key: OPENAI_API_KEY
const agent = new Agent({ name: 'travel', instructions: 'Find flights.', tools: [search], model });
const result = await run(agent, 'Flights to Lisbon?', { maxTurns: 6 });
console.log(result.finalOutput);
