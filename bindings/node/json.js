// The one writer of the JSON text of a caller's values: core.js writes every
// request with it, runtime.js a call's args. Not part of the package's API.

/**
 * JSON.stringify(value), but a TypeError (code ERR_INVALID_ARG_VALUE) where
 * JSON.stringify throws a RangeError: a value nested past the call stack
 * (100,000 nested arrays, a deep object graph), which the core would refuse
 * anyway (it reads 512 levels at most), as Python's binding raises a
 * ValueError for one nested past its recursion limit. A value that holds
 * itself is JSON.stringify's own TypeError.
 */
export function stringify(value) {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    throw Object.assign(new TypeError('toolerr: a value nested too deep to write as JSON (past the call stack; ' +
      'the core reads at most 512 levels)'), { code: 'ERR_INVALID_ARG_VALUE' });
  }
}
