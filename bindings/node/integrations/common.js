// What every framework integration shares: a failure's envelope, the text
// the model reads, a tool function run under a toolerr runtime Executor, and
// a schema validator's failures in the neutral form of docs/args.md. Nothing
// here decides: envelopes come from the core (classify, classify_exception,
// envelope, args_error), retries, breakers and budgets from the Executor's
// step op. Not a public entry point: each integration imports it.

// The package's own entry (a self-reference), so that Node loads toolerr.wasm
// (index.js) and a browser bundle takes browser.js, as for `import 'toolerr'`.
import { ToolFailure, canonicalize, classifyResponse, envelope, failureEnvelope, invoke } from 'toolerr';

/**
 * Resolves to the envelope of a tool's failure. A thrown fetch Response
 * (`if (!r.ok) throw r`) is classified from its status, headers and body,
 * which is read here; anything else as the runtime's failureEnvelope does (an
 * .envelope kept, an SDK status error by its status, headers and body, any
 * other error through classifyException, never its raw text or stack).
 */
export async function envelopeOf(err, tool) {
  if (isResponse(err)) {
    const bodyText = err.bodyUsed ? undefined : await err.text().catch(() => undefined);
    return classifyResponse(err, { bodyText, source: 'tool', tool: tool || undefined });
  }
  return failureEnvelope(err, tool);
}

/**
 * Returns the text the model reads for env: its canonical JSON (RFC 8785),
 * after the core's envelope op has sanitized its strings once more (a
 * hand-built envelope may carry what a model must never read).
 */
export function envelopeText(env) {
  return canonicalize(cleanEnvelope(env));
}

/** Returns env through the core's envelope op (registry defaults, sanitized strings). */
export function cleanEnvelope(env) {
  return envelope(env.code, env.message, { retryable: env.retryable, details: env.details, source: env.source });
}

/**
 * Returns fn wrapped so that every failure rejects with failure(envelope,
 * cause) (a ToolFailure by default). Without an executor fn runs once; with
 * one, each call runs under executor.call(tool, ...): retryable failures are
 * retried with full jitter, the breaker, budget and loop guard apply, and
 * only the final failure rejects. signalOf(args) picks the framework's
 * AbortSignal from the call's arguments (it ends retries and sleeps); the
 * loop guard sees argsOf(args) (default the first argument, the tool's
 * input) when it is JSON.
 */
export function guard(fn, tool, executor, { failure = (env) => new ToolFailure(env), signalOf = () => undefined, argsOf = (args) => args[0] } = {}) {
  return async function guarded(...args) {
    if (!executor) {
      try {
        return await fn.apply(this, args);
      } catch (e) {
        throw withCause(failure(await envelopeOf(e, tool), e), e);
      }
    }
    const r = await executor.call(tool, async () => {
      try {
        return await fn.apply(this, args);
      } catch (e) {
        // A Response's body can be read only here, before the executor classifies.
        throw isResponse(e) ? withCause(new ToolFailure(await envelopeOf(e, tool)), e) : e;
      }
    }, { args: jsonValue(argsOf(args)), signal: signalOf(args) });
    if (r.error) throw withCause(failure(r.error, r.cause), r.cause);
    return r.value;
  };
}

/**
 * Returns a schema validator's issues as argument failures in the neutral
 * form of docs/args.md ({path, keyword, expected?}), or null when err holds
 * none. Zod (v3 and v4) issues are read from err.issues or err.errors: path
 * becomes a JSON Pointer and the issue code the JSON Schema keyword it checks
 * (too_big on a number is maximum or exclusiveMaximum, on a string maxLength,
 * on an array maxItems; invalid_type is type, or required for a missing
 * value; unrecognized_keys additionalProperties, one per key); the
 * validator's text is never kept. A SyntaxError (arguments that are not
 * JSON) is {path: "", keyword: "json"}.
 *
 * See https://zod.dev/packages/core#issue-types (ZodIssueCode)
 */
export function argsFailures(err) {
  for (let e = err, depth = 0; e && depth < 8; e = e.originalError ?? e.cause, depth++) {
    if (e instanceof SyntaxError) return [{ path: '', keyword: 'json' }];
    const issues = Array.isArray(e.issues) ? e.issues : Array.isArray(e.errors) ? e.errors : null;
    if (issues && issues.length && issues.every((i) => typeof i?.code === 'string' && Array.isArray(i.path))) {
      return issues.flatMap(zodFailures);
    }
  }
  return null;
}

/** The failure of arguments a framework refused without saying why. */
export const WHOLE_ARGUMENTS = Object.freeze({ path: '', keyword: 'schema' });

/** Returns the core's INVALID_ARGS envelope for argument failures (op args_error). */
export function invalidArgs(failures, tool) {
  return invoke({ op: 'args_error', failures, ...(tool ? { tool } : {}) });
}

/** Returns the INVALID_ARGS envelope of the failures in err (argsFailures), or WHOLE_ARGUMENTS's. */
export function argsEnvelope(err, tool) {
  return invalidArgs(argsFailures(err) ?? [WHOLE_ARGUMENTS], tool);
}

/**
 * Returns whether value is, byte for byte, an envelope toolerr writes: the
 * core reads its canonical JSON as a tool message and says whether it is a
 * failure (outcome.RecognizeText: the five typed keys, sanitized, a
 * registered code), so a success that only resembles one stays a success.
 */
export function isEnvelope(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  let text;
  try {
    text = canonicalize(value);
  } catch {
    return false;
  }
  const [out] = invoke({ op: 'parse', format: 'openai-chat', messages: [{ role: 'tool', tool_call_id: 'c', content: text }] });
  return Boolean(out?.error);
}

/** Requires a framework module, or throws naming the package to install. */
export function missing(pkg, e) {
  return new Error(`toolerr: this integration needs ${pkg}: npm install ${pkg}`, { cause: e });
}

const pointer = (path) => path.map((p) => '/' + String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('');
const jsonTypes = { string: 'string', number: 'number', int: 'integer', bigint: 'integer', boolean: 'boolean', object: 'object', array: 'array', null: 'null', date: 'string' };
const sized = { number: ['minimum', 'maximum'], int: ['minimum', 'maximum'], bigint: ['minimum', 'maximum'], string: ['minLength', 'maxLength'], array: ['minItems', 'maxItems'], set: ['minItems', 'maxItems'], object: ['minProperties', 'maxProperties'] };

function zodFailures(issue) {
  const path = pointer(issue.path);
  const origin = issue.origin ?? issue.type; // v4 names it origin, v3 type
  switch (issue.code) {
    case 'invalid_type':
      if (issue.received === 'undefined' || ('input' in issue && issue.input === undefined)) return [{ path, keyword: 'required' }];
      return [{ path, keyword: 'type', ...(jsonTypes[issue.expected] ? { expected: jsonTypes[issue.expected] } : {}) }];
    case 'too_small':
    case 'too_big': {
      const big = issue.code === 'too_big';
      const [lo, hi] = sized[origin] ?? [];
      const numeric = lo === 'minimum';
      const exclusive = numeric && (issue.inclusive === false || issue.exclusive === true);
      const keyword = !lo ? 'invalid' : exclusive ? (big ? 'exclusiveMaximum' : 'exclusiveMinimum') : big ? hi : lo;
      const bound = big ? issue.maximum : issue.minimum;
      return [{ path, keyword, ...(typeof bound === 'number' ? { expected: bound } : {}) }];
    }
    case 'not_multiple_of':
      return [{ path, keyword: 'multipleOf', ...(typeof (issue.divisor ?? issue.multipleOf) === 'number' ? { expected: issue.divisor ?? issue.multipleOf } : {}) }];
    case 'unrecognized_keys':
      return (issue.keys ?? []).map((k) => ({ path: `${path}${pointer([k])}`, keyword: 'additionalProperties' }));
    case 'invalid_format':
    case 'invalid_string':
      if (issue.format === 'regex' || issue.validation === 'regex') {
        const pattern = typeof issue.pattern === 'string' ? issue.pattern.replace(/^\/(.*)\/[a-z]*$/s, '$1') : undefined; // Zod 4 writes /source/flags
        return [{ path, keyword: 'pattern', ...(pattern !== undefined ? { expected: pattern } : {}) }];
      }
      return [{ path, keyword: 'format', ...(typeof (issue.format ?? issue.validation) === 'string' ? { expected: issue.format ?? issue.validation } : {}) }];
    case 'invalid_value':
    case 'invalid_enum_value':
    case 'invalid_literal': {
      const values = issue.values ?? issue.options ?? (issue.expected !== undefined ? [issue.expected] : undefined);
      const ok = Array.isArray(values) && values.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
      return [{ path, keyword: 'enum', ...(ok ? { expected: values } : {}) }];
    }
    case 'invalid_union':
      return [{ path, keyword: 'anyOf' }];
    default:
      return [{ path, keyword: /^[A-Za-z0-9$_-]{1,64}$/.test(issue.code) ? issue.code : 'invalid' }];
  }
}

function isResponse(v) {
  return typeof Response === 'function' && v instanceof Response;
}

function withCause(err, cause) {
  if (err instanceof Error && cause !== undefined && err.cause === undefined) {
    Object.defineProperty(err, 'cause', { value: cause, configurable: true, writable: true });
  }
  return err;
}

function jsonValue(v) {
  if (v === undefined) return undefined;
  try {
    const s = JSON.stringify(v);
    return s === undefined ? undefined : JSON.parse(s);
  } catch {
    return undefined;
  }
}
