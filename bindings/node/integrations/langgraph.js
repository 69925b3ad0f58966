// toolerr/integrations/langgraph: toolerr inside LangGraph and LangChain for
// JavaScript (npm install @langchain/langgraph @langchain/core). Two hooks,
// used together or apart:
//
//   import { ToolNode, tool } from 'toolerr/integrations/langgraph';
//   const search = tool(searchFn, { name, description, schema, executor }); // a LangChain tool that fails with the envelope
//   new ToolNode([search, other]);                                           // any tool's failure becomes the envelope
//
// Either way a failed call becomes a ToolMessage with status "error" and the
// envelope's canonical JSON as its content. LangGraph's own ToolNode answers
// a failure with `Error: ${e.message}\n Please fix your mistakes.` (the
// tool's raw error text, an HTTP client's URL included) and takes only a
// boolean handleToolErrors; its runTool is the protected method a subclass
// overrides, which this ToolNode does. What the chat-model packages send for
// the ToolMessage is measured in bindings/node/test-frameworks/langgraph.test.mjs
// (docs/frameworks.md).
//
// See https://langchain-ai.github.io/langgraphjs/reference/classes/langgraph_prebuilt.ToolNode.html
// and @langchain/core/tools tool().

import { argsEnvelope, envelopeOf, envelopeText, guard, missing } from './common.js';

const [prebuilt, langgraph, messages, tools] = await Promise.all([
  import('@langchain/langgraph/prebuilt'), import('@langchain/langgraph'), import('@langchain/core/messages'),
  import('@langchain/core/tools'),
]).catch((e) => { throw missing('@langchain/langgraph @langchain/core', e); });

/**
 * Resolves to the ToolMessage content for a tool's failure: the envelope's
 * JSON. tool names the tool in the envelope (ToolNode passes the call's
 * name). Arguments that fail the tool's schema (@langchain/core's
 * ToolInputParsingException, which keeps the validator's text only) become
 * INVALID_ARGS naming the arguments as a whole; an HTTP status error (or a
 * thrown fetch Response) is classified from its status, headers and body; a
 * ToolFailure keeps its envelope; any other error becomes TOOL_ERROR (its
 * type named, never its text or stack).
 */
export async function handleToolErrors(error, tool) {
  if (error instanceof tools.ToolInputParsingException) return envelopeText(argsEnvelope(error, tool));
  return envelopeText(await envelopeOf(error, tool));
}

/**
 * LangGraph's ToolNode, answering every failed call with a ToolMessage whose
 * status is "error" and whose content is the envelope (handleToolErrors),
 * instead of the tool's raw error text. Graph interrupts and commands that
 * bubble up (isGraphBubbleUp) still propagate. tools and options are
 * ToolNode's; options.handleToolErrors is ignored (failures are always
 * answered).
 */
export class ToolNode extends prebuilt.ToolNode {
  constructor(toolList, options = {}) {
    super(toolList, { ...options, handleToolErrors: false }); // the base rethrows; runTool answers
  }

  /** ToolNode.runTool, with a failure answered by the envelope. */
  async runTool(call, config, state) {
    try {
      return await super.runTool(call, config, state);
    } catch (e) {
      if (langgraph.isGraphBubbleUp(e)) throw e;
      return errorMessage(await handleToolErrors(e, call.name), call.name, call.id ?? '');
    }
  }
}

/**
 * Returns a LangChain tool (@langchain/core/tools tool()) for func whose
 * failures are envelopes. fields are tool()'s (name, description, schema,
 * responseFormat, ...) plus executor (a toolerr Executor): with one, each
 * call runs under the runtime, so retryable failures are retried before the
 * model sees anything. func may also be a tool made by tool(), whose
 * function, name, description and schema are kept. Invoked with a tool call
 * (as ToolNode, createReactAgent and your own loop do), a failure resolves to
 * a ToolMessage with status "error" and the envelope as content, under any
 * ToolNode and its handleToolErrors setting: a thrown error through toolerr's
 * classification, arguments that fail the schema as INVALID_ARGS. Invoked
 * with plain arguments, a failure rejects with a ToolFailure carrying the
 * envelope.
 */
export function tool(func, { executor, ...fields } = {}) {
  if (func instanceof tools.StructuredTool) {
    fields = { name: func.name, description: func.description, schema: func.schema, ...fields };
    func = func.func;
  }
  const name = fields.name ?? func.name;
  const guarded = guard(func, name, executor, { signalOf: (args) => args[1]?.signal });
  const t = tools.tool(async (input, config) => {
    try {
      return await guarded(input, config);
    } catch (e) {
      const id = config?.toolCall?.id;
      if (id === undefined) throw e;
      return errorMessage(envelopeText(e.envelope), name, id);
    }
  }, { ...fields, name });
  const invoke = t.invoke.bind(t);
  t.invoke = async (input, config) => { // the schema is checked before the function runs
    try {
      return await invoke(input, config);
    } catch (e) {
      const id = input?.type === 'tool_call' ? input.id : undefined;
      if (!(e instanceof tools.ToolInputParsingException) || id === undefined) throw e;
      return errorMessage(envelopeText(argsEnvelope(e, name)), name, id);
    }
  };
  return t;
}

function errorMessage(content, name, toolCallId) {
  return new messages.ToolMessage({ status: 'error', content, name, tool_call_id: toolCallId });
}
