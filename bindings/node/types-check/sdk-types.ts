// tsc proof that toolerr's outputs are assignable to the official SDKs' parameter
// types (run by scripts/test-node.sh: tsc -p types-check). Never executed.
import type { ChatCompletionMessageParam, ChatCompletionToolMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import type { MessageParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { Content, FunctionResponse } from '@google/genai';
import {
  classifyHttp, toAnthropic, toGemini, toOpenAIChat, toOpenAIResponses, ToolerrError,
  type Envelope, type Outcome,
} from '../index.js';

const err: Envelope = classifyHttp(503, { 'retry-after': '2' }, undefined, { tool: 'search' });
const outcomes: Outcome[] = [{ callId: 'call_1', name: 'search', error: err }];

const [first] = toOpenAIChat(outcomes);
const chatTool: ChatCompletionToolMessageParam | undefined = first.role === 'tool' ? first : undefined;
const chatHistory: ChatCompletionMessageParam[] = [...toOpenAIChat(outcomes)];
const responsesInput: ResponseInputItem[] = toOpenAIResponses(outcomes);
const anthropicMessages: MessageParam[] = toAnthropic(outcomes);
const anthropicBlock: ToolResultBlockParam = toAnthropic(outcomes)[0].content[0];
const geminiContents: Content[] = toGemini(outcomes);
const geminiResponse: FunctionResponse = toGemini(outcomes)[0].parts[0].functionResponse;
const thrown: Envelope = new ToolerrError(err).envelope;

export { chatTool, chatHistory, responsesInput, anthropicMessages, anthropicBlock, geminiContents, geminiResponse, thrown };
