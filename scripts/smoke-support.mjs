// What the smoke tests of a release (release-smoke.mjs) and of its container image
// (container-smoke.mjs) share. Plain JavaScript with no dependency, as they are.
import { request } from 'node:http';
import { createServer } from 'node:net';

/** A port of the loopback that nothing listens on now. */
export async function unusedPort() {
  const probe = createServer();
  await new Promise((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address();
  await new Promise((done) => probe.close(done));
  return port;
}

/**
 * A JSON POST to the service on 127.0.0.1:`port` whose body is sent only in part, so that it is in
 * flight until `finish()` sends the rest; `response` resolves with the status and the body.
 */
export function postInFlight(port, path, headers, body) {
  let finish;
  const response = new Promise((done, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => done({ status: res.statusCode, text }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 10));
    finish = () => req.end(body.slice(10));
  });
  return { response, finish };
}
