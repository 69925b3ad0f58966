// Types of toolerr/integrations/langgraph (LangGraph and LangChain for JavaScript).
import type { ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { DynamicStructuredTool, StructuredToolInterface, ToolRunnableConfig } from '@langchain/core/tools';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { ToolNode as BaseToolNode } from '@langchain/langgraph/prebuilt';
import type { Executor } from '../index.js';

/** Resolves to the ToolMessage content for a tool's failure: the envelope's canonical JSON. */
export function handleToolErrors(error: unknown, tool?: string): Promise<string>;

/** LangGraph's ToolNode, answering every failed call with a ToolMessage(status "error") holding the envelope. */
export class ToolNode<T = any> extends BaseToolNode<T> {
  protected runTool(call: ToolCall, config: LangGraphRunnableConfig, state: unknown): ReturnType<BaseToolNode<T>['runTool']>;
}

/** The fields of tool(): @langchain/core's tool() fields, and the runtime executor. */
export interface ToolFields {
  name?: string;
  description?: string;
  schema?: unknown;
  responseFormat?: 'content' | 'content_and_artifact';
  returnDirect?: boolean;
  /** Runs each call under the toolerr runtime: retryable failures are retried before the model sees them. */
  executor?: Executor;
  [field: string]: unknown;
}

/**
 * A LangChain tool whose failures are envelopes: invoked with a tool call, a
 * failure resolves to a ToolMessage with status "error"; with plain
 * arguments, it rejects with a ToolFailure. func may be a tool made by tool().
 */
export function tool(func: ((input: any, config: ToolRunnableConfig) => unknown) | StructuredToolInterface,
  fields?: ToolFields): DynamicStructuredTool;

export type { ToolMessage };
