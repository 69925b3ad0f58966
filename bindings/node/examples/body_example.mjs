import * as toolerr from 'toolerr';

// A whole request body in, a whole request body out (the README's transcript example).
const body = {
  model: 'claude-sonnet-4-5', max_tokens: 1024, system: 'Answer briefly.',
  tools: [{ name: 'search', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
  messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'x' } }] }],
};
const fixed = toolerr.repair('anthropic', null, { body }); // the unanswered call gets a NO_RESULT failure
console.log(fixed.changes.synthesized, fixed.body.model, fixed.body.system);
const gemini = toolerr.convert(null, { from: 'anthropic', to: 'gemini', body: fixed.body });
console.log(JSON.stringify(gemini.body.systemInstruction), JSON.stringify(gemini.body.generationConfig));
console.log(gemini.notes.join('; '));
