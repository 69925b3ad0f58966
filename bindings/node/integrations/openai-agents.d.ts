// Types of toolerr/integrations/openai-agents (the OpenAI Agents SDK for JavaScript).
import type { FunctionTool, RunContext, ToolInputParameters, ToolOptions, ToolOutputSchema, UnknownContext } from '@openai/agents';
import type { Executor } from '../index.js';

/**
 * The SDK's ToolErrorFunction: resolves to the envelope's canonical JSON, the
 * text the model reads for a failed function tool (details.toolCall.name
 * names the tool). Pass it as agents.tool({ ..., errorFunction }).
 */
export function errorFunction(context: RunContext<any>, error: unknown,
  details?: { toolCall?: { name?: string } }): Promise<string>;

/**
 * agents.tool with toolerr's errorFunction; with executor, every call of
 * execute runs under the toolerr runtime (retryable failures retried before
 * the model sees them). Returns the SDK's FunctionTool.
 */
export function tool<TParameters extends ToolInputParameters = undefined, Context = UnknownContext, Result = string,
  TOutputSchema extends ToolOutputSchema | undefined = undefined>(
  options: ToolOptions<TParameters, Context, TOutputSchema> & { executor?: Executor },
): FunctionTool<Context, TParameters, Result>;
