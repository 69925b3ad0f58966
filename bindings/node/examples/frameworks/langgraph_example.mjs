// toolerr in LangGraph: seed 000's search tool (503, 503, then 400) inside a graph with Claude.
import { ChatAnthropic } from '@langchain/anthropic';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { toolsCondition } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { Executor } from 'toolerr';
import { ToolNode, tool } from 'toolerr/integrations/langgraph';

const [baseURL, searchUrl] = process.argv.slice(2); // the model API and the search service (the test's, on loopback)

async function search({ q, max_results }) {
  const r = await fetch(`${searchUrl}?${new URLSearchParams({ q, max_results: String(max_results) })}`);
  if (!r.ok) throw r; // the 503s are retried by the executor; the 400 reaches the model as INVALID_ARGS
  return r.text();
}

const tools = [tool(search, { name: 'search', description: 'Search for flights.', schema: z.object({ q: z.string(), max_results: z.number() }),
  executor: new Executor({ retry: { max_attempts: 3, base_ms: 20 } }) })];
const llm = new ChatAnthropic({ model: 'claude-sonnet-4-5', anthropicApiUrl: baseURL }).bindTools(tools); // the key: ANTHROPIC_API_KEY
const graph = new StateGraph(MessagesAnnotation)
  .addNode('model', async (state) => ({ messages: [await llm.invoke(state.messages)] }))
  .addNode('tools', new ToolNode(tools)) // also answers for tools toolerr did not wrap
  .addEdge(START, 'model').addConditionalEdges('model', toolsCondition, ['tools', END]).addEdge('tools', 'model')
  .compile();
const out = await graph.invoke({ messages: [{ role: 'user', content: 'Flights to Lisbon?' }] });
console.log(out.messages.at(-1).content);
