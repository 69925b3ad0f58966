// Types of toolerr/integrations/ai-sdk (the Vercel AI SDK).
import type { Tool } from 'ai';
import type { Envelope, Executor } from '../index.js';

/**
 * An AI SDK tool whose failures reach the model as `error-json` output
 * carrying the envelope; a failed call's output is the envelope. name names
 * the tool in the envelope (its key in your tools object); executor runs each
 * call under the toolerr runtime.
 */
export function tool<INPUT, OUTPUT>(def: Tool<INPUT, OUTPUT> & { name?: string; executor?: Executor }): Tool<INPUT, OUTPUT | Envelope>;

/** What a tool's toModelOutput returns (@ai-sdk/provider-utils ToolResultOutput). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool<any, any>['toModelOutput']>>>;

/** The `error-json` ToolResultOutput of a failure (a thrown error, a fetch Response, a ToolFailure). */
export function errorOutput(error: unknown, name?: string): Promise<ToolResultOutput & { type: 'error-json' }>;
