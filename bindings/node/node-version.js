// The Node versions toolerr runs on: 20 and newer (package.json "engines").
// npm only warns (EBADENGINE) when installing on an older one, and there the
// core's calls work but the Executor does not: its 'decision' events need the
// global CustomEvent (Node 19) and a call with both a signal and a timeout
// AbortSignal.any (Node 20.3), so it failed with "ReferenceError: CustomEvent
// is not defined" and nothing saying why.

/** The oldest major version of Node toolerr supports. */
export const MIN_NODE_MAJOR = 20;

/**
 * Returns the warning to emit on Node `version` (process.versions.node, e.g.
 * "18.20.8") when it is older than MIN_NODE_MAJOR, saying what fails and what
 * to do, or null on a supported (or unreadable) version.
 */
export function nodeVersionWarning(version) {
  const major = Number.parseInt(String(version), 10);
  if (!(major < MIN_NODE_MAJOR)) return null;
  return `toolerr needs Node ${MIN_NODE_MAJOR} or newer, and this is Node ${version}: the Executor fails here ` +
    `(its 'decision' events need the global CustomEvent); upgrade Node to ${MIN_NODE_MAJOR} or newer`;
}
