// The Node binding as an external target of the Go conformance suite
// (conformance/external.go): reads {"id", "request": base64} lines on stdin,
// answers {"id", "output": base64} per line on stdout, request bytes unchanged.
//   go test ./conformance -target "node=node --disable-warning=ExperimentalWarning bindings/node/tools/batch.mjs"
import { createInterface } from 'node:readline';
import { invokeBytes } from '../index.js';

const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const m = JSON.parse(line);
  const got = invokeBytes(Buffer.from(m.request, 'base64'));
  out.push(JSON.stringify({ id: m.id, output: Buffer.from(got).toString('base64') }));
}
process.stdout.write(out.join('\n') + '\n');
