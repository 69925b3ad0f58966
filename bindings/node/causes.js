// The one reader of an error's cause chain: core.js prints what it returns as
// the classify_exception op's "Caused by:" blocks, egress.js as the error
// text of a fetch that got no answer. Not part of the package's API.

// readCauses returns what can be read of err's ECMAScript 2022 Error.cause
// chain, the outer cause first: at most 8 causes (a cycle ends it), each
// {type, code, text}: its constructor's name (else its typeof), its string
// code ('' for none: Node's system errors carry ECONNREFUSED there, and an
// AggregateError of the refused attempts to each of a host's addresses has
// it with an empty message), and the first line of its message (else of
// String(cause)), cut at 4,096 characters (the op reads a cause by its type
// and its text; a longer one would take a request past the core's limit).
// A cause that cannot be read (a getter or a Proxy that throws, an object
// String() cannot convert) ends the chain: the causes before it still count.
const MAX_CAUSES = 8;
const MAX_CAUSE_CHARS = 4096;
export const readCauses = (err) => {
  const out = [];
  try {
    const seen = new Set([err]);
    for (let c = err?.cause; c !== undefined && c !== null && !seen.has(c) && out.length < MAX_CAUSES; c = c?.cause) {
      seen.add(c);
      const type = String(c?.constructor?.name || typeof c);
      const code = c?.code;
      out.push({ type, code: typeof code === 'string' ? code : '', text: firstLine(String(c?.message ?? c)) });
    }
  } catch { /* the causes read so far */ }
  return out;
};

// firstLine returns text up to its first line end, at most 4,096 characters.
const firstLine = (text) => {
  const nl = text.search(/[\r\n]/);
  return text.slice(0, Math.min(nl < 0 ? text.length : nl, MAX_CAUSE_CHARS));
};

/**
 * Returns the text of err itself as readCauses reads each cause's: the first
 * line of its message (else of String(err)), at most 4,096 characters; ''
 * when it cannot be read (an object of no prototype, a throwing getter or
 * Proxy).
 */
export const readText = (err) => {
  try {
    return firstLine(String(err?.message ?? err));
  } catch {
    return '';
  }
};
