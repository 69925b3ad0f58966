import * as toolerr from 'toolerr';

// A tool's HTTP call failed: classify it, then tell Claude in its own wire shape.
const err = toolerr.classifyHttp(429, { 'retry-after': '7' }, undefined, { tool: 'get_weather' });
console.log(err.code, err.retryable, err.details.retry_after_seconds);
const [msg] = toolerr.toAnthropic([{ callId: 'toolu_01', name: 'get_weather', error: err }]);
console.log(msg.content[0].type, msg.content[0].is_error);
try {
  toolerr.invoke({ op: 'no_such_op' });
} catch (e) { if (e instanceof toolerr.ToolerrError) console.log(e.code, e.details.path); }
