#!/usr/bin/env node
// `node scripts/container-smoke.mjs IMAGE [NAME]`: runs an image of the Dockerfile with podman as an
// operator would (.ci/container builds it and calls this). On the host's network, on a free
// port of the loopback: GET /readyz answers 200 (the time from `podman run` to it is printed),
// PID 1 is node as uid 1000, the keys CLI inside the container issues a key, list and create
// with it, `podman healthcheck run` passes, `podman stop` with a request in flight (answered
// 201, exit code 0, the JSON "stopped" line in `podman logs`), and a new container on the same
// named volume still has the animals. Removes its containers and volume. Exits 1 with the step
// that failed. Its containers are named NAME-first and NAME-second, its volume NAME-data
// (NAME: animal-store-smoke-PID unless given). Plain JavaScript with no dependency, on purpose.
import { spawn, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import { postInFlight, unusedPort } from './smoke-support.mjs';

const image = process.argv[2];
if (!image) {
  process.stderr.write('Usage: node scripts/container-smoke.mjs IMAGE [NAME]\n');
  process.exit(2);
}
const name = process.argv[3] ?? `animal-store-smoke-${process.pid}`;
const volume = `${name}-data`;
const containers = [];

/** podman with these arguments: its exit status and output. */
function podman(...args) {
  const result = spawnSync('podman', args, { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? '') };
}

function cleanup() {
  for (const container of containers) podman('rm', '--force', '--time', '0', container);
  podman('volume', 'rm', '--force', volume);
}

function fail(step, detail) {
  process.stderr.write(`container smoke test FAILED at: ${step}\n${detail ?? ''}\n`);
  for (const container of containers) {
    const logs = podman('logs', '--tail', '20', container);
    if (logs.status === 0) process.stderr.write(`-- last lines of ${container}:\n${logs.stdout}${logs.stderr}`);
  }
  cleanup();
  process.exit(1);
}

const step = (text) => process.stdout.write(`${text}\n`);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** Whether something accepts connections on the port. */
function listening(port) {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

/** Starts a container of the image on `port` with the volume; resolves with it once /readyz is 200, and the time that took. */
async function start(label, port) {
  const container = `${name}-${label}`;
  const started = performance.now();
  const run = podman(
    'run',
    '--detach',
    '--name',
    container,
    '--network',
    'host',
    '--env',
    `PORT=${port}`,
    '--env',
    'HOST=127.0.0.1',
    '--env',
    'LOG_LEVEL=info',
    '--volume',
    `${volume}:/app/data`,
    image,
  );
  if (run.status !== 0) fail(`podman run (${label})`, run.stderr);
  containers.push(container);
  for (let i = 0; i < 1200; i++) {
    const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { container, ms: performance.now() - started };
    const state = podman('inspect', '--format', '{{.State.Status}}', container).stdout.trim();
    if (state !== 'running' && state !== 'created') fail(`the container (${label}) stopped before it was ready: ${state}`);
    await sleep(25);
  }
  fail(`GET /readyz never answered 200 in 30 s (${label})`);
}

/** Runs node in the container with these arguments. */
const execNode = (container, ...args) => podman('exec', container, 'node', ...args);

const port = await unusedPort();
const first = await start('first', port);
const base = `http://127.0.0.1:${port}/v1`;
step(`podman run to GET /readyz 200: ${first.ms.toFixed(0)} ms`);

// PID 1 is the service itself, not root.
const pid1 = execNode(
  first.container,
  '-e',
  "const fs = require('fs'); console.log(fs.readFileSync('/proc/1/cmdline', 'utf8').split('\\0').join(' ').trim()); console.log(/^Uid:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/1/status', 'utf8'))[1])",
);
const [cmdline, uid] = pid1.stdout.trim().split('\n');
if (pid1.status !== 0 || !/^node .*server\.js$/.test(cmdline ?? '') || uid !== '1000')
  fail('PID 1 is node server.js as uid 1000', pid1.stdout + pid1.stderr);
step(`PID 1: ${cmdline}, uid ${uid}`);

// The keys CLI inside the container, on the store the service uses.
const created = execNode(first.container, 'keys.js', 'create', '--plan', 'free', '--name', 'container ci');
const key = /\n(as_prod_[0-9A-Za-z]{38})\n/.exec(created.stdout)?.[1];
if (created.status !== 0 || !key) fail('podman exec ... node keys.js create', created.stdout + created.stderr);
const auth = { Authorization: `Bearer ${key}` };
step('keys.js create inside the container: ok');

// List and create with the key.
const empty = await fetch(`${base}/pets`, { headers: auth });
if (empty.status !== 200 || !Array.isArray(await empty.json())) fail('GET /v1/pets with the key', String(empty.status));
const post = await fetch(`${base}/pets`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: '{"name":"Rex","categoryId":3}',
});
const pet = await post.json();
if (post.status !== 201 || pet.name !== 'Rex') fail('POST /v1/pets', `${post.status} ${JSON.stringify(pet)}`);
const listed = await (await fetch(`${base}/pets`, { headers: auth })).json();
if (!listed.some((p) => p.id === pet.id)) fail('GET /v1/pets lists the new animal', JSON.stringify(listed));
step('list and create with the key: ok');

// The image's HEALTHCHECK (kept only in the docker format).
const health = podman('healthcheck', 'run', first.container);
if (health.status !== 0) fail('podman healthcheck run', health.stdout + health.stderr);
step(`podman healthcheck run: ${health.stdout.trim() || 'healthy'}`);

// podman stop (SIGTERM to PID 1) with a request in flight: the service stops listening, answers
// the request once its body has come, then exits 0.
const inFlight = postInFlight(port, '/v1/pets', auth, JSON.stringify({ name: 'Slowpoke', categoryId: 1 }));
inFlight.response.catch(() => {});
await sleep(200);
const stopStarted = performance.now();
const stopping = spawn('podman', ['stop', '--time', '30', first.container], { stdio: ['ignore', 'ignore', 'pipe'] });
let stopErrors = '';
stopping.stderr.on('data', (chunk) => (stopErrors += chunk));
const stopped = new Promise((done) => stopping.once('exit', (code) => done(code)));
let closed = false;
for (let i = 0; i < 400 && !closed; i++) {
  closed = !(await listening(port));
  if (!closed) await sleep(25);
}
if (!closed) fail('the service stops listening after podman stop (SIGTERM)');
inFlight.finish();
const answer = await inFlight.response.catch((error) => fail('the request in flight at the stop', String(error)));
if (answer.status !== 201) fail('the request in flight at the stop is answered 201', `${answer.status} ${answer.text}`);
if ((await stopped) !== 0) fail('podman stop', stopErrors);
const stopMs = performance.now() - stopStarted;
const exitCode = podman('inspect', '--format', '{{.State.ExitCode}}', first.container).stdout.trim();
if (exitCode !== '0') fail('exit code 0 after podman stop', `exit code ${exitCode}`);
const logs = podman('logs', first.container);
const lines = (logs.stdout + logs.stderr).split('\n').filter((line) => line !== '');
const nonJson = lines.filter((line) => !line.startsWith('{'));
if (nonJson.length > 0) fail('the container logs JSON lines only', nonJson.join('\n'));
if (!lines.some((line) => JSON.parse(line).msg === 'stopped')) fail('podman logs shows the "stopped" line', lines.join('\n'));
step(`podman stop with a request in flight: answered 201, exit code 0, "stopped" logged (${stopMs.toFixed(0)} ms)`);

// A new container on the same named volume: the store, its animals and its key are still there.
podman('rm', first.container);
const second = await start('second', port);
const after = await fetch(`${base}/pets`, { headers: auth });
const kept = after.status === 200 ? await after.json() : [];
for (const animal of ['Rex', 'Slowpoke']) {
  if (!kept.some((p) => p.name === animal)) fail(`the volume keeps ${animal} across containers`, `${after.status} ${JSON.stringify(kept)}`);
}
podman('stop', '--time', '30', second.container);
step(`a new container on the named volume: the animals and the key are there (ready in ${second.ms.toFixed(0)} ms)`);

cleanup();
step(`container smoke test passed (podman run to first 200: ${first.ms.toFixed(0)} ms)`);
