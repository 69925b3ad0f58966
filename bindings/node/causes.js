// The one reader of an error's cause chain: core.js prints what it returns as
// the classify_exception op's "Caused by:" blocks, egress.js as the error
// text of a fetch that got no answer. Not part of the package's API.

// readCauses returns what can be read of err's ECMAScript 2022 Error.cause
// chain, the outer cause first: at most 8 causes (a cycle ends it), each
// {type, code, text}: its constructor's name (else its typeof), its string
// code ('' for none: Node's system errors carry ECONNREFUSED there, and an
// AggregateError of the refused attempts to each of a host's addresses has
// it with an empty message), and the first line of its message (else of
// String(cause)), cut at 4,096 characters (code points: a surrogate pair is
// one, as in Python, Rust and Go; the op reads a cause by its type
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

// firstLine returns text up to its first line end, at most 4,096 characters
// counted as code points, as Python (a str's items), Rust (chars) and Go
// (errorChainText's range over runes) count them: a surrogate pair is one
// character, a lone surrogate is one (as String.prototype[Symbol.iterator]
// yields it, ECMA-262 CodePointAt), so a pair is never split. A line of at
// most 4,096 UTF-16 units holds at most 4,096 code points and is kept whole
// without a walk.
const firstLine = (text) => {
  const nl = text.search(/[\r\n]/);
  const line = nl < 0 ? text : text.slice(0, nl);
  if (line.length <= MAX_CAUSE_CHARS) return line;
  let i = 0;
  for (let n = 0; n < MAX_CAUSE_CHARS && i < line.length; n++) {
    const c = line.charCodeAt(i++);
    if (c >= 0xd800 && c <= 0xdbff && i < line.length && (line.charCodeAt(i) & 0xfc00) === 0xdc00) i++;
  }
  return line.slice(0, i);
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
