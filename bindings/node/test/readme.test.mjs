// The README example runs (importing the package by its name) and prints what docs/bindings.md shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

test('README example prints the documented lines', () => {
  const out = execFileSync(process.execPath, ['--no-warnings', fileURLToPath(new URL('../examples/readme_example.mjs', import.meta.url))],
    { encoding: 'utf8' });
  assert.deepEqual(out.trim().split('\n'), ['RATE_LIMITED true 7', 'tool_result true', 'INVALID_INPUT op']);
});
