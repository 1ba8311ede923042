#!/usr/bin/env node
// `node scripts/release-smoke.mjs [RELEASE_DIR]`: checks a release (npm run release) as an
// operator would use it, with nothing of the repository around it: the folder is copied into an
// empty temporary directory (so no node_modules of the repository can be found) and run with
// plain node. Start, list, create, the keys CLI (create, revoke), and SIGTERM with a request in
// flight (answered, then exit 0). Plain JavaScript with no dependency, on purpose. Exits 1 with
// the step that failed.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { postInFlight, unusedPort } from './smoke-support.mjs';

const source = resolve(process.argv[2] ?? 'release');
const work = mkdtempSync(join(tmpdir(), 'animal-store-release-smoke-'));
const release = join(work, 'release');
let server;

function fail(step, detail) {
  process.stderr.write(`release smoke test FAILED at: ${step}\n${detail ?? ''}\n`);
  server?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}

function bytesUnder(path) {
  const stat = statSync(path);
  return stat.isDirectory() ? readdirSync(path).reduce((sum, name) => sum + bytesUnder(join(path, name)), 0) : stat.size;
}

const env = {
  ...process.env,
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  DATABASE_PATH: join(work, 'data', 'store.db'),
  DATABASE_URL: '',
  REDIS_URL: '',
};
const keysCli = (...args) => spawnSync(process.execPath, [join(release, 'keys.js'), ...args], { cwd: work, env, encoding: 'utf8' });

try {
  cpSync(source, release, { recursive: true });
} catch (error) {
  fail(`copying ${source}`, String(error));
}
const size = bytesUnder(release);
process.stdout.write(`release: ${(size / 1048576).toFixed(1)} MiB, copied to ${release}\n`);

// Its packages, nested ones included, are the versions of the repository's package-lock.json.
const repositoryLock = JSON.parse(readFileSync(resolve('package-lock.json'), 'utf8')).packages;
const installed = Object.keys(JSON.parse(readFileSync(join(release, 'package-lock.json'), 'utf8')).packages).filter((at) => at !== '');
const readVersion = (at) => {
  try {
    return JSON.parse(readFileSync(join(release, at, 'package.json'), 'utf8')).version;
  } catch {
    return 'missing';
  }
};
const differing = installed.filter((at) => readVersion(at) !== repositoryLock[at]?.version);
if (installed.length === 0 || differing.length > 0)
  fail(
    "the release's packages are the repository's locked versions",
    differing.map((at) => `${at}: ${readVersion(at)}, locked ${repositoryLock[at]?.version}`).join('\n'),
  );
process.stdout.write(`packages: ${installed.length}, each at the repository's locked version\n`);

// The keys CLI: create.
const created = keysCli('create', '--plan', 'free', '--name', 'smoke');
const key = /\n(as_prod_[0-9A-Za-z]{38})\n/.exec(created.stdout)?.[1];
if (created.status !== 0 || !key) fail('keys.js create', created.stdout + created.stderr);
process.stdout.write('keys.js create: ok\n');

// Start.
const port = await unusedPort();
const started = performance.now();
server = spawn(process.execPath, [join(release, 'server.js')], {
  cwd: work,
  env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
server.stdout.on('data', (chunk) => (output += chunk));
server.stderr.on('data', (chunk) => (output += chunk));
const exited = new Promise((done) => server.once('exit', (code, signal) => done(code ?? signal)));
const base = `http://127.0.0.1:${port}/v1`;
const auth = { Authorization: `Bearer ${key}` };
let firstOk = null;
for (let i = 0; i < 600 && firstOk === null; i++) {
  const status = await fetch(`${base}/pets`, { headers: auth }).then(
    (r) => r.status,
    () => 0,
  );
  if (status === 200) firstOk = performance.now() - started;
  else await new Promise((done) => setTimeout(done, 25));
}
if (firstOk === null) fail('start (GET /v1/pets never answered 200 in 15 s)', output);
process.stdout.write(`start to first 200: ${firstOk.toFixed(0)} ms\n`);

// Create and list.
const post = await fetch(`${base}/pets`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: '{"name":"Rex","categoryId":3}',
});
const pet = await post.json();
if (post.status !== 201 || pet.name !== 'Rex') fail('POST /v1/pets', `${post.status} ${JSON.stringify(pet)}`);
const list = await (await fetch(`${base}/pets`, { headers: auth })).json();
if (!Array.isArray(list) || !list.some((p) => p.id === pet.id)) fail('GET /v1/pets lists the new animal', JSON.stringify(list));
const docs = await fetch(`http://127.0.0.1:${port}/docs`);
if (docs.status !== 200 || !(await docs.text()).includes('Animal Store')) fail('GET /docs');
process.stdout.write('create, list, docs: ok\n');

// The keys CLI: revoke, and the service refuses the key from the next request on.
const keyId = /key_[0-9a-f]{12}/.exec(created.stdout)?.[0];
const revoked = keysCli('revoke', keyId ?? '');
if (revoked.status !== 0) fail('keys.js revoke', revoked.stdout + revoked.stderr);
const refused = await fetch(`${base}/pets`, { headers: auth });
if (refused.status !== 401) fail('a revoked key is refused', String(refused.status));
const second = /\n(as_prod_[0-9A-Za-z]{38})\n/.exec(keysCli('create', '--plan', 'pro', '--name', 'smoke 2').stdout)?.[1];
if (!second) fail('keys.js create (second key)');
process.stdout.write('keys.js revoke: ok\n');

// SIGTERM with a request in flight: it is answered, then the process exits 0.
const inFlight = postInFlight(port, '/v1/pets', { Authorization: `Bearer ${second}` }, JSON.stringify({ name: 'Slowpoke', categoryId: 1 }));
setTimeout(() => {
  server.kill('SIGTERM');
  setTimeout(inFlight.finish, 300);
}, 300);
const answer = await inFlight.response.catch((error) => fail('the in-flight request', String(error)));
if (answer.status !== 201) fail('the in-flight request is answered 201', `${answer.status} ${answer.text}`);
const code = await exited;
if (code !== 0) fail('exit 0 after SIGTERM', `exit ${code}\n${output}`);
const nonJson = output.split('\n').filter((line) => line !== '' && !line.startsWith('{'));
if (nonJson.length > 0) fail('production output is JSON lines only', nonJson.join('\n'));
process.stdout.write('SIGTERM with a request in flight: answered 201, exit 0\n');

rmSync(work, { recursive: true, force: true });
process.stdout.write(`release smoke test passed (release ${(size / 1048576).toFixed(1)} MiB, first 200 after ${firstOk.toFixed(0)} ms)\n`);
