/**
 * The load generator, in a process of its own: runs autocannon with the LoadSpec it reads as
 * JSON from standard input and prints its result as JSON. With `paths`, each request takes the
 * next of them, so a cache in the server cannot answer every request from one entry.
 */
import autocannon from 'autocannon';
import type { LoadSpec } from './load-spec.js';

let input = '';
for await (const chunk of process.stdin) input += String(chunk);
const spec = JSON.parse(input) as LoadSpec;
const base = new URL(spec.url);
const paths = spec.paths ?? [`${base.pathname}${base.search}`];
let next = 0;
const result = await autocannon({
  url: base.origin,
  connections: spec.connections,
  duration: spec.durationSeconds,
  requests: [
    {
      method: spec.method ?? 'GET',
      path: paths[0],
      headers: spec.headers ?? {},
      body: spec.body,
      ...(paths.length > 1 ? { setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length] }) } : {}),
    },
  ],
});
process.stdout.write(JSON.stringify(result));
