// The Node versions toolerr runs on: 20.3 and newer (package.json "engines").
// npm only warns (EBADENGINE) when installing on an older one, and there the
// core's calls work but the Executor does not: its 'decision' events need the
// global CustomEvent (Node 19) and a call with both a signal and a timeout
// AbortSignal.any (Node 20.3), so it failed with "ReferenceError: CustomEvent
// is not defined" and nothing saying why.

/** The oldest version of Node toolerr supports, as [major, minor]. */
export const MIN_NODE = [20, 3];

/**
 * Returns the warning to emit on Node `version` (process.versions.node, e.g.
 * "18.20.8") when it is older than MIN_NODE, saying what fails and what to
 * do, or null on a supported (or unreadable) version.
 */
export function nodeVersionWarning(version) {
  const [major, minor] = String(version).split('.').map((p) => Number.parseInt(p, 10));
  if (!(major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]))) return null;
  const min = MIN_NODE.join('.');
  return `toolerr needs Node ${min} or newer, and this is Node ${version}: the Executor fails here ` +
    `(its 'decision' events need the global CustomEvent, a call with a signal and a timeout AbortSignal.any); ` +
    `upgrade Node to ${min} or newer`;
}
